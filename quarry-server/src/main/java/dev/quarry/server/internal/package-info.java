/** Implementation of the server: HTTP/1.1 and HTTP/2 connections, exchanges, handler invocation. Not API. */
package dev.quarry.server.internal;
