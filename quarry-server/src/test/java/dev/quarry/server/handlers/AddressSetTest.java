package dev.quarry.server.handlers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnixDomainSocketAddress;
import org.junit.jupiter.api.Test;

class AddressSetTest {

    private static InetAddress ip(String literal) throws Exception {
        return InetAddress.getByName(literal);
    }

    @Test
    void ipv4BlocksMatchTheirPrefix() throws Exception {
        AddressSet set = AddressSet.parse("10.0.0.0/8, 192.168.1.7 172.16.0.0/12");
        assertTrue(set.contains(ip("10.255.3.4")));
        assertTrue(set.contains(ip("192.168.1.7")));
        assertFalse(set.contains(ip("192.168.1.8")), "a single address is a /32");
        assertTrue(set.contains(ip("172.31.255.255")));
        assertFalse(set.contains(ip("172.32.0.0")));
        assertFalse(set.contains(ip("11.0.0.1")));
    }

    @Test
    void ipv6BlocksMatchTheirPrefix() throws Exception {
        AddressSet set = AddressSet.parse("2001:db8::/32 ::1 [fe80::]/10");
        assertTrue(set.contains(ip("2001:db8:ffff::1")));
        assertFalse(set.contains(ip("2001:db9::1")));
        assertTrue(set.contains(ip("::1")));
        assertTrue(set.contains(ip("febf::1")), "/10 is not a whole number of bytes");
        assertFalse(set.contains(ip("fec0::1")));
        assertFalse(set.contains(ip("127.0.0.1")), "an IPv6 block never contains an IPv4 address");
    }

    @Test
    void anIpv4MappedAddressIsTheIpv4Address() throws Exception {
        AddressSet set = AddressSet.parse("::ffff:10.1.2.3");
        assertTrue(set.contains(ip("10.1.2.3")));
        assertEquals("10.1.2.3", set.toString());
    }

    @Test
    void zeroPrefixMatchesTheWholeFamily() throws Exception {
        AddressSet set = AddressSet.parse("0.0.0.0/0");
        assertTrue(set.contains(ip("8.8.8.8")));
        assertFalse(set.contains(ip("::2")));
    }

    @Test
    void hostBitsAreClearedAndTheCanonicalFormParsesBack() {
        AddressSet set = AddressSet.parse(" 10.1.2.3/8 ,2001:DB8:0:0:1::/32  ");
        assertEquals("10.0.0.0/8, 2001:db8:0:0:0:0:0:0/32", set.toString());
        assertEquals(set, AddressSet.parse(set.toString()));
        assertEquals(2, set.size());
    }

    @Test
    void emptyTextIsTheEmptySet() {
        assertTrue(AddressSet.parse("  ").isEmpty());
        assertEquals(AddressSet.NONE, AddressSet.parse(""));
    }

    @Test
    void hostNamesAndBadPrefixesAreRejectedWithTheEntry() {
        IllegalArgumentException name =
                assertThrows(IllegalArgumentException.class, () -> AddressSet.parse("localhost"));
        assertTrue(name.getMessage().contains("'localhost'"), name.getMessage());
        IllegalArgumentException prefix =
                assertThrows(IllegalArgumentException.class, () -> AddressSet.parse("10.0.0.0/33"));
        assertTrue(prefix.getMessage().contains("10.0.0.0/33"), prefix.getMessage());
        assertThrows(IllegalArgumentException.class, () -> AddressSet.parse("::1/129"));
        assertThrows(IllegalArgumentException.class, () -> AddressSet.parse("10.0.0.0/x"));
        assertThrows(IllegalArgumentException.class, () -> AddressSet.parse("300.1.1.1"));
    }

    @Test
    void socketAddressesMatchByTheirIpAndUnixClientsNever() {
        AddressSet set = AddressSet.parse("127.0.0.0/8");
        assertTrue(set.contains(new InetSocketAddress("127.0.0.2", 1234)));
        assertFalse(set.contains(UnixDomainSocketAddress.of("/tmp/quarry.sock")));
        assertFalse(set.contains(InetSocketAddress.createUnresolved("127.0.0.1", 80)));
    }
}
