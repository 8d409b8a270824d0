/** Retainable (reference-counted) byte buffers, their bucketed pool, and the leak-tracking pool that tests use. */
package dev.quarry.core.buffer;
