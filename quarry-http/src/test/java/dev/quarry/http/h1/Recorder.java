package dev.quarry.http.h1;

import dev.quarry.http.BadMessageException;
import dev.quarry.http.HttpField;
import dev.quarry.http.HttpVersion;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Records parser events as readable strings; consecutive content events are merged, so that a message gives the same
 * record whatever its split points. Flags make callbacks return true to test stopping.
 */
class Recorder implements HttpRequestListener {
    final List<String> events = new ArrayList<>();
    final List<HttpField> fields = new ArrayList<>();
    BadMessageException failure;
    boolean stopAtHeaderComplete;
    boolean stopAtContent;
    boolean stopAtMessageComplete = true;
    boolean prefaceAccepted = true;
    int prefaces;

    @Override
    public void startRequest(String method, String target, HttpVersion version) {
        events.add("request " + method + " " + target + " " + version);
    }

    @Override
    public void header(HttpField field) {
        fields.add(field);
        events.add("header " + field);
    }

    @Override
    public boolean headerComplete() {
        events.add("headerComplete");
        return stopAtHeaderComplete;
    }

    @Override
    public boolean content(ByteBuffer chunk) {
        byte[] bytes = new byte[chunk.remaining()];
        chunk.get(bytes);
        String text = new String(bytes, StandardCharsets.ISO_8859_1);
        int last = events.size() - 1;
        if (last >= 0 && events.get(last).startsWith("content ")) {
            events.set(last, events.get(last) + text);
        } else {
            events.add("content " + text);
        }
        return stopAtContent;
    }

    @Override
    public boolean contentComplete() {
        events.add("contentComplete");
        return false;
    }

    @Override
    public void trailer(HttpField field) {
        events.add("trailer " + field);
    }

    @Override
    public boolean messageComplete() {
        events.add("messageComplete");
        return stopAtMessageComplete;
    }

    @Override
    public void badMessage(BadMessageException failure) {
        this.failure = failure;
        events.add("badMessage " + failure.status());
    }

    @Override
    public void earlyEOF() {
        events.add("earlyEOF");
    }

    @Override
    public void http2Preface() {
        prefaces++;
        events.add("http2Preface");
        if (!prefaceAccepted) {
            HttpRequestListener.super.http2Preface();
        }
    }
}
