/**
 * Handlers that wrap or complement application handlers: {@link dev.quarry.server.handlers.ThrottleHandler} and its
 * {@link dev.quarry.server.handlers.Throttle} (bandwidth limits per request, per client and global, allow and deny
 * lists, a cap on a client's concurrent requests).
 */
package dev.quarry.server.handlers;
