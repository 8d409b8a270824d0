/**
 * HTTP/1.1 (RFC 9112): the strict, allocation-light request {@link dev.quarry.http.h1.HttpParser} with its listener
 * interfaces and limits, and the response {@link dev.quarry.http.h1.HttpGenerator} that decides framing and
 * persistence.
 */
package dev.quarry.http.h1;
