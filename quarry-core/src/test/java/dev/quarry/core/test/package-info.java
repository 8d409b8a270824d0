/**
 * Test support that quarry-core's test-jar shares with the other modules' tests, such as the JUnit extension that
 * fails a test that leaks a buffer. A package of its own so that it never splits a package of the named module
 * {@code dev.quarry.core}.
 */
package dev.quarry.core.test;
