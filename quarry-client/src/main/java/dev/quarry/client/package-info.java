/**
 * The HTTP client: {@code HttpClient}, its requests and responses.
 *
 * <p>Design: per origin (scheme, host, port) a destination holds a bounded queue of exchanges in front of a duplex
 * pool of HTTP/1.1 connections built on {@link dev.quarry.core.pool.Pool}; connections are opened without blocking by
 * a client-side {@link dev.quarry.io.SelectorManager}.
 */
package dev.quarry.client;
