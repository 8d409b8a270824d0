/**
 * Selectors, endpoints, connections and connectors. Threading: a {@link dev.quarry.io.ManagedSelector} is driven by
 * one thread at a time (whichever thread owns its production); endpoints may be used from any thread, with at most
 * one pending read interest and one pending write at a time.
 */
package dev.quarry.io;
