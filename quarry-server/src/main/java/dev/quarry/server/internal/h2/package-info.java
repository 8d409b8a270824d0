/**
 * The HTTP/2 server session: each connection is a producer of streams under its own adaptive execution strategy;
 * flow-control and control frames are handled by the producer itself, so they progress even when every thread is
 * blocked in application code.
 */
package dev.quarry.server.internal.h2;
