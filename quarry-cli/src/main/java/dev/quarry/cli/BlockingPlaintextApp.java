package dev.quarry.cli;

import dev.quarry.server.Handler;
import dev.quarry.server.Request;
import dev.quarry.server.Response;
import java.io.IOException;

/**
 * The plaintext endpoint written as users write most handlers: the blocking {@link Handler} shape, run on a virtual
 * thread (by default), answering with {@code send(String)}. {@code quarry plaintext --blocking} serves it, so that the
 * benchmarks measure what a blocking handler costs beside the asynchronous {@link PlaintextApp}.
 */
final class BlockingPlaintextApp implements Handler {
    @Override
    public void handle(Request request, Response response) throws IOException {
        response.send("Hello, World!");
    }

    @Override
    public String toString() {
        return "BlockingPlaintextApp";
    }
}
