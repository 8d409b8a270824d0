package dev.quarry.io;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MappingFaultsTest {
    @Test
    void theJvmsFaultForAReadOfATruncatedMappingIsOne(@TempDir Path dir) throws IOException {
        Path file = Files.write(dir.resolve("shrinks.bin"), new byte[64 * 1024]);
        MappedByteBuffer mapped;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, 64 * 1024);
        }
        try (FileChannel truncating = FileChannel.open(file, StandardOpenOption.WRITE)) {
            truncating.truncate(10);
        }
        ByteBuffer out = ByteBuffer.allocateDirect(16 * 1024);
        InternalError fault = null;
        try {
            // Interpreted here (one call, never compiled): the error comes from the copy itself.
            out.put(0, mapped, 32 * 1024, 16 * 1024);
        } catch (InternalError x) {
            fault = x;
        }
        assertTrue(fault != null, "the copy faulted");
        assertTrue(MappingFaults.isReadFault(fault), fault.getMessage());
        assertTrue(MappingFaults.causedByReadFault(new IOException("cannot read", fault)));
    }

    @Test
    void theCompiledCodeWordingIsOneToo() {
        InternalError late =
                new InternalError("a fault occurred in a recent unsafe memory access operation in compiled Java code");
        assertTrue(MappingFaults.isReadFault(late));
    }

    @Test
    void otherErrorsAreNot() {
        assertFalse(MappingFaults.isReadFault(new InternalError("a bug")));
        assertFalse(MappingFaults.isReadFault(new InternalError((String) null)));
        assertFalse(MappingFaults.isReadFault(new IOException("unsafe memory access")));
        assertFalse(MappingFaults.causedByReadFault(new IOException("reset", new InternalError("a bug"))));
        assertFalse(MappingFaults.causedByReadFault(null));
    }
}
