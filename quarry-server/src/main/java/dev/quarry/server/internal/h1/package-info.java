/**
 * The HTTP/1.1 server connection: request parsing and the exchange state machine ({@code Http1Connection}), response
 * output ({@code Http1ResponseWriter}), connection buffers, and the hand-over to HTTP/2 (prior knowledge or h2c).
 */
package dev.quarry.server.internal.h1;
