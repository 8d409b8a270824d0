package dev.quarry.server.handlers;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * An immutable set of IP addresses given as CIDR blocks, IPv4 and IPv6: {@code 10.0.0.0/8}, {@code 192.168.1.7},
 * {@code 2001:db8::/32}, {@code ::1}. Used for the throttle's allow list (unthrottled clients) and deny list (refused
 * clients).
 *
 * <p>Only address literals are accepted, never host names: parsing never touches DNS. An IPv4-mapped IPv6 address
 * ({@code ::ffff:10.1.2.3}) is the IPv4 address, as the JDK reports such clients.
 *
 * <p>Thread-safety: immutable. Cost: {@link #contains} is O(blocks), allocation-free; lists are expected to be short.
 */
public final class AddressSet {
    /** The empty set. */
    public static final AddressSet NONE = new AddressSet(List.of());

    private final List<Block> blocks;

    private AddressSet(List<Block> blocks) {
        this.blocks = blocks;
    }

    /**
     * Parses a list of addresses and CIDR blocks separated by commas and/or white space; an empty or blank text is the
     * empty set.
     *
     * @param text e.g. {@code "127.0.0.1, 10.0.0.0/8 ::1 2001:db8::/32"}
     * @return the set
     * @throws IllegalArgumentException naming the entry that is not an address literal or has a bad prefix length
     */
    public static AddressSet parse(String text) {
        Objects.requireNonNull(text, "text");
        List<Block> blocks = new ArrayList<>();
        for (String entry : text.trim().split("[,\\s]+")) {
            if (!entry.isEmpty()) {
                blocks.add(Block.parse(entry));
            }
        }
        return blocks.isEmpty() ? NONE : new AddressSet(List.copyOf(blocks));
    }

    /**
     * @param address an address
     * @return whether one of the blocks contains it
     */
    public boolean contains(InetAddress address) {
        byte[] bytes = address.getAddress();
        for (Block block : blocks) {
            if (block.contains(bytes)) {
                return true;
            }
        }
        return false;
    }

    /**
     * @param address a client's socket address
     * @return whether it is an IP address in this set (a Unix-domain client never is)
     */
    public boolean contains(SocketAddress address) {
        return address instanceof InetSocketAddress inet && inet.getAddress() != null && contains(inet.getAddress());
    }

    /** @return whether the set is empty */
    public boolean isEmpty() {
        return blocks.isEmpty();
    }

    /** @return how many blocks it has */
    public int size() {
        return blocks.size();
    }

    /** @return the blocks in canonical form, comma-separated: parsing it gives an equal set */
    @Override
    public String toString() {
        StringBuilder out = new StringBuilder();
        for (Block block : blocks) {
            if (!out.isEmpty()) {
                out.append(", ");
            }
            out.append(block);
        }
        return out.toString();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof AddressSet set && blocks.equals(set.blocks);
    }

    @Override
    public int hashCode() {
        return blocks.hashCode();
    }

    /** One CIDR block: the network's bytes (host bits cleared) and the prefix length. */
    private record Block(byte[] network, int prefix) {

        static Block parse(String entry) {
            int slash = entry.indexOf('/');
            String host = slash < 0 ? entry : entry.substring(0, slash);
            if (host.length() > 2 && host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            InetAddress address = literal(host)
                    .orElseThrow(() -> new IllegalArgumentException(
                            "not an IPv4 or IPv6 address literal: '" + entry + "' (host names are not accepted)"));
            byte[] bytes = address.getAddress();
            int bits = bytes.length * 8;
            int prefix = bits;
            if (slash >= 0) {
                try {
                    prefix = Integer.parseInt(entry.substring(slash + 1));
                } catch (NumberFormatException x) {
                    prefix = -1;
                }
                if (prefix < 0 || prefix > bits) {
                    throw new IllegalArgumentException(
                            "bad prefix length in '" + entry + "': must be 0.." + bits + " for this address");
                }
            }
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] &= (byte) mask(prefix, i);
            }
            return new Block(bytes, prefix);
        }

        /** The address of a literal, or empty if {@code host} is not one (so that nothing resolves a name). */
        private static Optional<InetAddress> literal(String host) {
            boolean ipv4 = host.matches("\\d{1,3}(\\.\\d{1,3}){3}");
            boolean ipv6 = host.indexOf(':') >= 0 && host.matches("[0-9A-Fa-f:.]+");
            if (!ipv4 && !ipv6) {
                return Optional.empty();
            }
            try {
                return Optional.of(InetAddress.getByName(host));
            } catch (UnknownHostException x) {
                return Optional.empty();
            }
        }

        /** The mask of byte {@code index} for a prefix of {@code prefix} bits. */
        private static int mask(int prefix, int index) {
            int bits = Math.clamp(prefix - 8L * index, 0, 8);
            return (0xFF << (8 - bits)) & 0xFF;
        }

        boolean contains(byte[] address) {
            if (address.length != network.length) {
                return false;
            }
            for (int i = 0; i < address.length; i++) {
                int m = mask(prefix, i);
                if (m == 0) {
                    return true;
                }
                if ((address[i] & m) != (network[i] & 0xFF)) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Block block && prefix == block.prefix && Arrays.equals(network, block.network);
        }

        @Override
        public int hashCode() {
            return 31 * Arrays.hashCode(network) + prefix;
        }

        @Override
        public String toString() {
            try {
                String address = InetAddress.getByAddress(network).getHostAddress();
                return prefix == network.length * 8 ? address : address + "/" + prefix;
            } catch (UnknownHostException x) {
                throw new IllegalStateException("a 4- or 16-byte array is always an address", x);
            }
        }
    }
}
