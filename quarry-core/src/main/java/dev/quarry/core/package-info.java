/** Invocation types, invocable tasks and callbacks, life cycle and dump contracts: the vocabulary every Quarry layer uses. */
package dev.quarry.core;
