/**
 * The HTTP model shared by HTTP/1.1, HTTP/2 and the server: versions, methods, status codes, well-known field names,
 * fields and field sections, errors that carry a status, compliance modes whose every leniency is a named violation
 * citing its RFC section, request-target parsing with path normalisation and query parameters, and what web forms
 * need: cookies ({@link dev.quarry.http.Cookies}, {@link dev.quarry.http.SetCookie}), media types, URL-encoded form
 * bodies ({@link dev.quarry.http.FormData}) and an incremental {@code multipart/form-data} parser
 * ({@link dev.quarry.http.MultipartParser}).
 */
package dev.quarry.http;
