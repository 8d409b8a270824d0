/**
 * Quarry's HTTP client: {@code dev.quarry.client.HttpClient} sends requests to destinations keyed by origin, each with
 * a bounded queue of exchanges in front of a lock-free pool of HTTP/1.1 and HTTP/2 connections (quarry-core's {@code Pool}), over
 * the same selectors and endpoints as the server.
 *
 * <p>No dependency outside the JDK and the Quarry core, I/O and HTTP modules; never on the server.
 */
module dev.quarry.client {
    requires transitive dev.quarry.core;
    requires transitive dev.quarry.io;
    requires transitive dev.quarry.http;
    requires java.management; // the optional MXBeans (HttpClient.Builder.jmx)

    exports dev.quarry.client;
}
