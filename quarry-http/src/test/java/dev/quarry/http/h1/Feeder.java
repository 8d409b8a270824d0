package dev.quarry.http.h1;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Feeds a message to a parser in pieces, the way a connection would: parse until the piece is consumed, reset after
 * each complete message (pipelining), then, if asked, signal EOF.
 */
final class Feeder {
    private Feeder() {}

    static byte[] bytes(String message) {
        return message.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** Parses the message in one piece from a heap buffer and returns the events. */
    static Recorder parse(String message) {
        return parse(message, HttpParserConfig.DEFAULT);
    }

    static Recorder parse(String message, HttpParserConfig config) {
        return parse(bytes(message), config, List.of(), false, false);
    }

    /**
     * @param message the bytes
     * @param config parser configuration
     * @param splits indexes where to cut the message into pieces (ascending)
     * @param direct whether to feed direct buffers
     * @param eof whether to signal EOF after the last piece
     */
    static Recorder parse(byte[] message, HttpParserConfig config, List<Integer> splits, boolean direct, boolean eof) {
        Recorder recorder = new Recorder();
        HttpParser parser = new HttpParser(recorder, config);
        feed(parser, message, splits, direct, eof);
        return recorder;
    }

    static void feed(HttpParser parser, byte[] message, List<Integer> splits, boolean direct, boolean eof) {
        List<Integer> cuts = new ArrayList<>(splits);
        cuts.add(message.length);
        int from = 0;
        for (int cut : cuts) {
            ByteBuffer piece = direct ? ByteBuffer.allocateDirect(cut - from) : ByteBuffer.allocate(cut - from);
            piece.put(message, from, cut - from).flip();
            drive(parser, piece);
            from = cut;
        }
        if (eof) {
            parser.atEOF();
            drive(parser, ByteBuffer.allocate(0));
        }
    }

    /** Parses a buffer until it is consumed or the parser can go no further; resets between messages. */
    static void drive(HttpParser parser, ByteBuffer buffer) {
        for (int guard = 0; guard < 1_000_000; guard++) {
            int before = buffer.position();
            HttpParser.State stateBefore = parser.state();
            parser.parse(buffer);
            if (parser.isComplete()) {
                parser.reset();
                if (!buffer.hasRemaining() && !parser.isAtEOF()) {
                    return;
                }
                continue;
            }
            if (parser.isClosed() || parser.state() == HttpParser.State.HTTP2) {
                return;
            }
            if (!buffer.hasRemaining() && buffer.position() == before && parser.state() == stateBefore) {
                return; // needs more bytes
            }
        }
        throw new AssertionError("parser makes no progress: " + parser);
    }
}
