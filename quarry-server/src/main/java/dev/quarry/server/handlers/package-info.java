/**
 * Ready-made handlers: {@link dev.quarry.server.handlers.StaticFiles} serves the files under a directory (types,
 * validators, conditional and range requests, index files and listings, precompressed siblings, zero-copy sending and
 * a cache of small hot files), refusing any path that leaves the directory or names a hidden file.
 */
package dev.quarry.server.handlers;
