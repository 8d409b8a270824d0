/**
 * Implementation of the server's certificates: PEM and PKCS#12 loading, the SNI key manager that picks a certificate
 * per server name, and the reloader that swaps them in while the server runs. Not API.
 */
package dev.quarry.server.internal.tls;
