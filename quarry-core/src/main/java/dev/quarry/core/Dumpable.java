package dev.quarry.core;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * A component that can describe its live state (threads, queues, connections, counters) as an indented tree, for
 * status pages and for diagnosing a stuck server.
 */
public interface Dumpable {

    /**
     * Writes this component's state, one line per item, each child indented below its parent.
     *
     * @param out where to write
     * @param indent the indentation of this component's children
     * @throws IOException if {@code out} fails
     */
    void dump(Appendable out, String indent) throws IOException;

    /** @return the dump as a string */
    default String dump() {
        StringBuilder builder = new StringBuilder();
        try {
            dump(builder, "");
        } catch (IOException x) {
            throw new UncheckedIOException(x); // StringBuilder does not throw
        }
        return builder.toString();
    }
}
