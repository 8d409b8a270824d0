package dev.quarry.server.internal;

import dev.quarry.http.HttpFields;

/**
 * The committed head of a response, handed to the protocol once.
 *
 * @param status the status code
 * @param fields the header fields (the response's own object, no longer modified)
 * @param contentLength the content length if known (-1 otherwise)
 */
public record ResponseHead(int status, HttpFields fields, long contentLength) {}
