/**
 * The HTTP model shared by HTTP/1.1, HTTP/2 and the server: versions, methods, status codes, well-known field names,
 * fields and field sections, errors that carry a status, compliance modes whose every leniency is a named violation
 * citing its RFC section, and request-target parsing with path normalisation and query parameters.
 */
package dev.quarry.http;
