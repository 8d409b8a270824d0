/**
 * HTTP/2 framing (RFC 9113): frame types and error codes, settings, a push parser of frames that assembles and decodes
 * header blocks, the HTTP/2 message rules for request and trailer header blocks, and a generator of frames.
 */
package dev.quarry.http.h2;
