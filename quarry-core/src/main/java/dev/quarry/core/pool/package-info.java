/** The lock-free pool of entries in a copy-on-write array, for connections and other expensive objects. */
package dev.quarry.core.pool;
