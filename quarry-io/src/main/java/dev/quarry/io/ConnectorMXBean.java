package dev.quarry.io;

/** The JMX view of a {@link ServerConnector}: what it listens on and its connection counters. */
public interface ConnectorMXBean {

    /** @return e.g. {@code http/1.1 (h2c) on 0.0.0.0:8080} */
    String getDescription();

    /** @return connections open now */
    long getOpenConnections();

    /** @return connections accepted since start */
    long getAcceptedConnections();

    /** @return the most connections open at once */
    long getMaxOpenConnections();

    /** @return bytes read by connections since start */
    long getBytesIn();

    /** @return bytes written by connections since start */
    long getBytesOut();

    /** @return the cap on open connections, 0 for none */
    int getMaxConnections();
}
