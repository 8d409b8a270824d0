package dev.quarry.core.buffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.test.Concurrently;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The reference counting every retainable buffer shares, shown on the unpooled {@link RetainableByteBuffer#wrap}. */
class RetainableByteBufferTest {

    @Test
    void wrapKeepsTheBufferAsItIs() {
        ByteBuffer plain = ByteBuffer.allocate(16).position(3).limit(10);
        RetainableByteBuffer buffer = RetainableByteBuffer.wrap(plain);

        assertSame(plain, buffer.byteBuffer());
        assertEquals(3, plain.position());
        assertEquals(10, plain.limit());
        assertTrue(buffer.release());
    }

    @Test
    void aFreshBufferHasOneHolder() {
        RetainableByteBuffer buffer = RetainableByteBuffer.wrap(ByteBuffer.allocate(8));

        assertFalse(buffer.isRetained());
        assertTrue(buffer.release(), "the only holder's release is the final one");
    }

    @Test
    void everyRetainNeedsOneMoreRelease() {
        RetainableByteBuffer buffer = RetainableByteBuffer.wrap(ByteBuffer.allocate(8));
        buffer.retain();
        buffer.retain();

        assertTrue(buffer.isRetained());
        assertFalse(buffer.release());
        assertTrue(buffer.isRetained());
        assertFalse(buffer.release());
        assertFalse(buffer.isRetained());
        assertTrue(buffer.release());
    }

    @Test
    void releasingMoreTimesThanRetainedThrowsNamingTheBuffer() {
        RetainableByteBuffer buffer = RetainableByteBuffer.wrap(ByteBuffer.allocate(8));
        assertTrue(buffer.release());

        IllegalStateException failure = assertThrows(IllegalStateException.class, buffer::release);

        assertTrue(failure.getMessage().contains("already released"), failure.getMessage());
        assertTrue(failure.getMessage().contains(buffer.toString()), failure.getMessage());
    }

    @Test
    void aRefusedReleaseLeavesTheCountAtZero() {
        RetainableByteBuffer buffer = RetainableByteBuffer.wrap(ByteBuffer.allocate(8));
        buffer.release();
        assertThrows(IllegalStateException.class, buffer::release);

        // Had the refused release decremented the count, a retain would bring it back to zero and look released.
        assertThrows(IllegalStateException.class, buffer::retain);
    }

    @Test
    void retainingAReleasedBufferThrows() {
        RetainableByteBuffer buffer = RetainableByteBuffer.wrap(ByteBuffer.allocate(8));
        buffer.release();

        IllegalStateException failure = assertThrows(IllegalStateException.class, buffer::retain);

        assertTrue(failure.getMessage().contains("retain() of a buffer already released"), failure.getMessage());
    }

    @Test
    void conveniencesDescribeTheUnderlyingBuffer() {
        RetainableByteBuffer buffer = RetainableByteBuffer.wrap(ByteBuffer.allocateDirect(32));

        assertEquals(32, buffer.capacity());
        assertTrue(buffer.isDirect());
        assertEquals(32, buffer.remaining());
        assertTrue(buffer.hasRemaining());
        assertFalse(buffer.isEmpty());

        buffer.byteBuffer().put(new byte[5]).flip();
        assertEquals(5, buffer.remaining());
        buffer.byteBuffer().position(5);
        assertTrue(buffer.isEmpty(), "every written byte was read");

        buffer.clear();
        assertEquals(0, buffer.byteBuffer().position());
        assertEquals(32, buffer.byteBuffer().limit());
        assertTrue(buffer.release());
    }

    @Test
    void toStringShowsKindCapacityAndCount() {
        RetainableByteBuffer buffer = RetainableByteBuffer.wrap(ByteBuffer.allocate(64));
        buffer.retain();

        String string = buffer.toString();

        assertTrue(string.contains("heap"), string);
        assertTrue(string.contains("capacity=64"), string);
        assertTrue(string.contains("references=2"), string);
        buffer.release();
        buffer.release();
    }

    @Test
    void concurrentRetainsAndReleasesBalance() throws InterruptedException {
        RetainableByteBuffer buffer = RetainableByteBuffer.wrap(ByteBuffer.allocate(8));

        Concurrently.run(4, Duration.ofSeconds(30), thread -> {
            for (int i = 0; i < 10_000; i++) {
                buffer.retain();
                assertFalse(buffer.release(), "the test's own reference keeps the count above zero");
            }
        });

        assertFalse(buffer.isRetained());
        assertTrue(buffer.release());
    }
}
