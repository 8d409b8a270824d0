/**
 * Test support that quarry-http's test-jar shares with other modules' tests (a JSON reader). A package of its own so
 * that it never splits a package of the named module {@code dev.quarry.http}.
 */
package dev.quarry.http.testing;
