package dev.quarry.server.internal.tls;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What certificate files look like at one moment: each file's modification time and size. A change of either means a
 * file was written (or removed), which is all a watcher needs: reading the files is left to the reload.
 *
 * <p>Thread-safety: immutable. Cost: one {@code stat} per file (blocking I/O: never on a selector).
 *
 * @param stamps each file with its modification time and size, -1 and -1 if it cannot be read
 */
record FileStamps(Map<Path, List<Long>> stamps) {

    /** Copies. */
    FileStamps {
        stamps = Map.copyOf(stamps);
    }

    /** @return the stamps of the sources' files now */
    static FileStamps of(List<CertificateSource> sources) {
        Map<Path, List<Long>> stamps = new LinkedHashMap<>();
        for (CertificateSource source : sources) {
            for (Path file : source.files()) {
                stamps.put(file, stamp(file));
            }
        }
        return new FileStamps(stamps);
    }

    private static List<Long> stamp(Path file) {
        try {
            BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
            return List.of(attributes.lastModifiedTime().toMillis(), attributes.size());
        } catch (IOException x) {
            return List.of(-1L, -1L);
        }
    }
}
