package dev.quarry.server;

import dev.quarry.http.UriCompliance;
import dev.quarry.http.h1.HttpParserConfig;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * HTTP settings shared by all connections of a server; immutable.
 *
 * @param serverName the value of the {@code Server} response field, empty to send none
 * @param sendDateHeader whether responses carry a {@code Date} field (cached, refreshed once per second)
 * @param parser the HTTP/1.1 parser limits and compliance (8 KiB request line, 8 KiB of headers, 100 fields by default)
 * @param uriCompliance which ambiguous request paths are tolerated (none by default: they are answered 400)
 * @param inputBufferSize the size of a connection's read buffer
 * @param outputBufferSize the size of a connection's write buffer, in which small responses (and pipelined ones) are
 *     aggregated into one write
 * @param maxUnconsumedContent how much request body the server reads and discards when a handler completes without
 *     reading it all, to keep the connection; beyond it the connection is closed
 * @param headerTimeout how long a request head may take to arrive once it has begun, however its bytes trickle in (a
 *     slow client, or slowloris); past it the request is answered 408 and the connection closed. 15 s by default
 * @param minRequestBodyRate the slowest a request body may arrive, in bytes per second of waiting for it, 0 for no
 *     minimum (the default). Only the time the handler waits for content counts (a handler slow to read is not the
 *     client's fault), and the first second of waiting is free. A slower body's reads fail with 408, which is
 *     answered if nothing of the response was sent yet (then HTTP/1.1 closes the connection); HTTP/2 resets a stream
 *     whose response had begun
 */
public record HttpConfig(
        Optional<String> serverName,
        boolean sendDateHeader,
        HttpParserConfig parser,
        UriCompliance uriCompliance,
        int inputBufferSize,
        int outputBufferSize,
        long maxUnconsumedContent,
        Duration headerTimeout,
        long minRequestBodyRate) {

    /** The defaults. */
    public static final HttpConfig DEFAULT = new HttpConfig(
            Optional.of("quarry"),
            true,
            HttpParserConfig.DEFAULT,
            UriCompliance.STRICT,
            16 * 1024,
            32 * 1024,
            64 * 1024,
            Duration.ofSeconds(15),
            0);

    /** Validates. */
    public HttpConfig {
        Objects.requireNonNull(serverName, "serverName");
        Objects.requireNonNull(parser, "parser");
        Objects.requireNonNull(uriCompliance, "uriCompliance");
        Objects.requireNonNull(headerTimeout, "headerTimeout");
        if (headerTimeout.isNegative() || headerTimeout.isZero()) {
            throw new IllegalArgumentException("headerTimeout must be positive, was " + headerTimeout);
        }
        if (minRequestBodyRate < 0) {
            throw new IllegalArgumentException("minRequestBodyRate must be 0 or more, was " + minRequestBodyRate);
        }
        if (inputBufferSize < 1024) {
            throw new IllegalArgumentException("inputBufferSize must be >= 1024, was " + inputBufferSize);
        }
        if (outputBufferSize < 1024) {
            throw new IllegalArgumentException("outputBufferSize must be >= 1024, was " + outputBufferSize);
        }
    }

    /**
     * @param parser new parser settings
     * @return a copy with them
     */
    public HttpConfig withParser(HttpParserConfig parser) {
        return new HttpConfig(
                serverName,
                sendDateHeader,
                parser,
                uriCompliance,
                inputBufferSize,
                outputBufferSize,
                maxUnconsumedContent,
                headerTimeout,
                minRequestBodyRate);
    }

    /**
     * @param headerTimeout how long a request head may take once begun (see the record's parameter)
     * @return a copy with it
     */
    public HttpConfig withHeaderTimeout(Duration headerTimeout) {
        return new HttpConfig(
                serverName,
                sendDateHeader,
                parser,
                uriCompliance,
                inputBufferSize,
                outputBufferSize,
                maxUnconsumedContent,
                headerTimeout,
                minRequestBodyRate);
    }

    /**
     * @param serverName the Server field value, or empty for none
     * @return a copy with it
     */
    public HttpConfig withServerName(Optional<String> serverName) {
        return new HttpConfig(
                serverName,
                sendDateHeader,
                parser,
                uriCompliance,
                inputBufferSize,
                outputBufferSize,
                maxUnconsumedContent,
                headerTimeout,
                minRequestBodyRate);
    }

    /**
     * @param bytesPerSecond the slowest a request body may arrive, 0 for no minimum (see the record's parameter)
     * @return a copy with it
     */
    public HttpConfig withMinRequestBodyRate(long bytesPerSecond) {
        return new HttpConfig(
                serverName,
                sendDateHeader,
                parser,
                uriCompliance,
                inputBufferSize,
                outputBufferSize,
                maxUnconsumedContent,
                headerTimeout,
                bytesPerSecond);
    }
}
