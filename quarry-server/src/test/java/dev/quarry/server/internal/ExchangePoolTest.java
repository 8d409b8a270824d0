package dev.quarry.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;

class ExchangePoolTest {

    @Test
    void anEmptyPoolMakesANewExchange() {
        ExchangePool pool = new ExchangePool(2);
        assertNotSame(pool.acquire(), pool.acquire());
        assertEquals(0, pool.idleCount());
    }

    @Test
    void aReturnedExchangeIsTakenAgain() {
        ExchangePool pool = new ExchangePool(2);
        Exchange exchange = pool.acquire();
        pool.release(exchange);
        assertEquals(1, pool.idleCount());
        assertSame(exchange, pool.acquire());
        assertEquals(0, pool.idleCount());
    }

    @Test
    void aFullPoolLeavesTheExtraExchangeToTheGarbageCollector() {
        ExchangePool pool = new ExchangePool(2);
        Exchange a = pool.acquire();
        Exchange b = pool.acquire();
        Exchange c = pool.acquire();
        pool.release(a);
        pool.release(b);
        pool.release(c);
        assertEquals(2, pool.idleCount());
        assertEquals(Set.of(a, b), Set.of(pool.acquire(), pool.acquire()));
        Exchange made = pool.acquire();
        assertTrue(made != a && made != b && made != c, "the third one was dropped: a new one is made");
    }

    @Test
    void aPoolHasASlotAtLeast() {
        assertThrows(IllegalArgumentException.class, () -> new ExchangePool(0));
    }
}
