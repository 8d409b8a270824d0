/**
 * Ready-made handlers. {@link dev.quarry.server.handlers.StaticFiles} serves the files under a directory (types,
 * validators, conditional and range requests, index files and listings, precompressed siblings, zero-copy sending and
 * a cache of small hot files), refusing any path that leaves the directory or names a hidden file.
 * {@link dev.quarry.server.handlers.ThrottleHandler} and its {@link dev.quarry.server.handlers.Throttle} wrap any
 * handler with bandwidth limits per request, per client and global, allow and deny lists, and a cap on a client's
 * concurrent requests.
 */
package dev.quarry.server.handlers;
