/** The thread pool with reserved threads for direct hand-off, bounded virtual-thread execution, and their statistics. */
package dev.quarry.core.thread;
