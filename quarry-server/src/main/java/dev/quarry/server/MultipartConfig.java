package dev.quarry.server;

import dev.quarry.http.MultipartParser;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * How {@link Multipart} reads a {@code multipart/form-data} body: the limits (each a 413 when passed), and where the
 * content of large parts goes.
 *
 * @param limits the most parts, bytes of part headers, bytes per part and bytes in all
 * @param memoryThreshold the most content bytes a part keeps in memory; a larger part is written to a temporary file
 * @param tempDirectory where temporary files go; empty for the JVM's {@code java.io.tmpdir}
 */
public record MultipartConfig(MultipartParser.Limits limits, int memoryThreshold, Optional<Path> tempDirectory) {
    /** {@link MultipartParser.Limits#DEFAULT}, 64 KiB in memory per part, files in {@code java.io.tmpdir}. */
    public static final MultipartConfig DEFAULT =
            new MultipartConfig(MultipartParser.Limits.DEFAULT, 64 * 1024, Optional.empty());

    /** Checks the arguments. */
    public MultipartConfig {
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(tempDirectory, "tempDirectory");
        if (memoryThreshold < 0) {
            throw new IllegalArgumentException("negative memoryThreshold: " + memoryThreshold);
        }
    }

    /** @return a copy with {@code limits} */
    public MultipartConfig withLimits(MultipartParser.Limits limits) {
        return new MultipartConfig(limits, memoryThreshold, tempDirectory);
    }

    /** @return a copy with at most {@code maxParts} parts */
    public MultipartConfig withMaxParts(int maxParts) {
        return withLimits(limits.withMaxParts(maxParts));
    }

    /** @return a copy with at most {@code maxPartHeaderSize} bytes of headers per part */
    public MultipartConfig withMaxPartHeaderSize(int maxPartHeaderSize) {
        return withLimits(limits.withMaxPartHeaderSize(maxPartHeaderSize));
    }

    /** @return a copy with at most {@code maxPartSize} content bytes per part */
    public MultipartConfig withMaxPartSize(long maxPartSize) {
        return withLimits(limits.withMaxPartSize(maxPartSize));
    }

    /** @return a copy with at most {@code maxTotalSize} bytes of body */
    public MultipartConfig withMaxTotalSize(long maxTotalSize) {
        return withLimits(limits.withMaxTotalSize(maxTotalSize));
    }

    /** @return a copy that keeps at most {@code memoryThreshold} bytes of a part in memory */
    public MultipartConfig withMemoryThreshold(int memoryThreshold) {
        return new MultipartConfig(limits, memoryThreshold, tempDirectory);
    }

    /** @return a copy that writes temporary files to {@code directory} */
    public MultipartConfig withTempDirectory(Path directory) {
        return new MultipartConfig(limits, memoryThreshold, Optional.of(directory));
    }
}
