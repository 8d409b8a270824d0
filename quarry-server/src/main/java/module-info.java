/**
 * The Quarry HTTP server: {@link dev.quarry.server.Server} and its builder, the request/response model with its two
 * handler shapes (blocking {@link dev.quarry.server.Handler} on virtual threads, asynchronous
 * {@link dev.quarry.server.AsyncHandler} with callbacks), the router, and the HTTP/1.1 and HTTP/2 connections.
 */
module dev.quarry.server {
    requires transitive dev.quarry.core;
    requires transitive dev.quarry.io;
    requires transitive dev.quarry.http;
    requires java.management;
    requires static jdk.management; // the descriptor limit, for the default cap on connections

    exports dev.quarry.server;
    exports dev.quarry.server.handlers;
}
