package dev.quarry.client;

import java.lang.System.Logger.Level;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.StandardMBean;

/**
 * Registers a client's MXBeans with the platform MBean server, and unregisters them when the client closes. Names
 * carry the client's name and identity hash, so that several clients of the same name do not collide.
 *
 * <p>Thread-safety: {@link #register} and {@link #unregisterAll} may run on any thread; a destination registered while
 * the client closes is unregistered by whichever of the two runs last.
 */
final class ClientMBeans {
    private static final System.Logger LOG = System.getLogger(ClientMBeans.class.getName());

    private final HttpClient client;
    private final String prefix;
    private final ConcurrentLinkedQueue<ObjectName> names = new ConcurrentLinkedQueue<>();
    private volatile boolean closed;

    ClientMBeans(HttpClient client, String name) {
        this.client = client;
        this.prefix =
                "dev.quarry:client=" + quote(name) + ",id=" + Integer.toHexString(System.identityHashCode(client));
    }

    void registerClient() {
        register(new StandardMBean(new ClientView(), HttpClientMXBean.class, true), "type=HttpClient");
    }

    void registerDestination(Destination destination) {
        register(
                new StandardMBean(new DestinationView(destination), DestinationMXBean.class, true),
                "type=Destination,origin="
                        + ObjectName.quote(destination.origin().toString()));
    }

    private void register(Object bean, String properties) {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        try {
            ObjectName name = new ObjectName(prefix + "," + properties);
            server.registerMBean(bean, name);
            names.add(name);
            if (closed) {
                unregisterAll(); // the client closed meanwhile: no bean outlives it
            }
        } catch (JMException x) {
            LOG.log(Level.WARNING, "cannot register the MBean " + properties + " of " + client, x);
        }
    }

    void unregisterAll() {
        closed = true;
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName name;
        while ((name = names.poll()) != null) {
            try {
                server.unregisterMBean(name);
            } catch (JMException x) {
                LOG.log(Level.DEBUG, "unregistering {0}: {1}", name, x);
            }
        }
    }

    private static String quote(String value) {
        return value.matches("[A-Za-z0-9._-]+") ? value : ObjectName.quote(value);
    }

    private final class ClientView implements HttpClientMXBean {
        @Override
        public String getName() {
            return client.name();
        }

        @Override
        public String getConnectionPool() {
            return client.connectionPoolKind().name();
        }

        @Override
        public int getMaxConnectionsPerDestination() {
            return client.maxConnectionsPerDestination();
        }

        @Override
        public List<String> getDestinations() {
            List<String> origins = new ArrayList<>();
            for (DestinationStatistics s : client.statistics()) {
                origins.add(s.origin().toString());
            }
            return origins;
        }

        private int sum(ToIntFunction<DestinationStatistics> value) {
            return client.statistics().stream().mapToInt(value).sum();
        }

        private long sumLong(ToLongFunction<DestinationStatistics> value) {
            return client.statistics().stream().mapToLong(value).sum();
        }

        @Override
        public int getQueued() {
            return sum(DestinationStatistics::queued);
        }

        @Override
        public int getConnections() {
            return sum(DestinationStatistics::connections);
        }

        @Override
        public int getActive() {
            return sum(DestinationStatistics::inUse);
        }

        @Override
        public int getIdle() {
            return sum(DestinationStatistics::idle);
        }

        @Override
        public int getPending() {
            return sum(DestinationStatistics::connecting);
        }

        @Override
        public long getOpened() {
            return sumLong(DestinationStatistics::opened);
        }

        @Override
        public long getClosed() {
            return sumLong(DestinationStatistics::closed);
        }

        @Override
        public long getExchanges() {
            return sumLong(DestinationStatistics::exchanges);
        }

        @Override
        public long getRejected() {
            return sumLong(DestinationStatistics::rejected);
        }
    }

    private final class DestinationView implements DestinationMXBean {
        private final Destination destination;

        DestinationView(Destination destination) {
            this.destination = destination;
        }

        @Override
        public String getOrigin() {
            return destination.origin().toString();
        }

        @Override
        public String getConnectionPool() {
            return client.connectionPoolKind().name();
        }

        @Override
        public int getQueued() {
            return destination.statistics().queued();
        }

        @Override
        public int getMaxQueued() {
            return client.maxQueuedPerDestination();
        }

        @Override
        public int getConnections() {
            return destination.statistics().connections();
        }

        @Override
        public int getMaxConnections() {
            return client.maxConnectionsPerDestination();
        }

        @Override
        public int getActive() {
            return destination.statistics().inUse();
        }

        @Override
        public int getIdle() {
            return destination.statistics().idle();
        }

        @Override
        public int getPending() {
            return destination.statistics().connecting();
        }

        @Override
        public int getOpen() {
            return destination.statistics().open();
        }

        @Override
        public int getMaxOpen() {
            return destination.statistics().maxOpen();
        }

        @Override
        public long getOpened() {
            return destination.statistics().opened();
        }

        @Override
        public long getClosed() {
            return destination.statistics().closed();
        }

        @Override
        public long getExchanges() {
            return destination.statistics().exchanges();
        }

        @Override
        public long getRetries() {
            return destination.statistics().retries();
        }

        @Override
        public long getRejected() {
            return destination.statistics().rejected();
        }
    }
}
