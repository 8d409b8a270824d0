package dev.quarry.server.handlers;

import java.nio.file.Path;

/**
 * What a safe path names under the root: a servable file ({@link StaticResource}), a directory, or nothing that may be
 * served (absent, unreadable, hidden, or outside the root through a symbolic link: all look alike to the client).
 */
sealed interface Lookup permits StaticResource, Lookup.Directory, Lookup.Missing {

    /**
     * A directory under the root.
     *
     * @param path its real path
     */
    record Directory(Path path) implements Lookup {}

    /** Nothing to serve. */
    enum Missing implements Lookup {
        /** The only instance. */
        INSTANCE
    }
}
