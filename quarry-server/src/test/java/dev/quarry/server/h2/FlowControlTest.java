package dev.quarry.server.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.http.h2.Http2Settings;
import dev.quarry.http.h2test.FrameEvent;
import dev.quarry.http.h2test.Http2TestClient;
import dev.quarry.server.h2.TestHandlers.Shape;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Flow control in both directions, frame by frame. */
class FlowControlTest extends Http2ServerTestSupport {

    @Test
    void theAckOfNewSettingsPrecedesTheDataTheyRelease() throws Exception {
        start(builder -> builder.handler(TestHandlers.hello(Shape.ASYNC)));
        Http2TestClient client = connect(new Http2Settings().set(Http2Settings.INITIAL_WINDOW_SIZE, 0));
        int stream = client.get("/");
        // The head goes out; the body waits for window: the response is stalled in the flusher.
        client.await(FrameEvent.Headers.class, h -> h.streamId() == stream, TIMEOUT);
        client.sendSettings(new Http2Settings().set(Http2Settings.INITIAL_WINDOW_SIZE, 1));
        FrameEvent.Data data = client.await(FrameEvent.Data.class, d -> d.streamId() == stream, TIMEOUT);
        assertEquals(1, data.data().length, "one octet of window, one octet of DATA");
        List<FrameEvent> events = client.events();
        int ack = events.lastIndexOf(new FrameEvent.SettingsAck());
        int first = events.indexOf(data);
        assertTrue(ack >= 0 && ack < first, () -> "RFC 9113 6.5.3: the ACK comes first: " + events);
    }
}
