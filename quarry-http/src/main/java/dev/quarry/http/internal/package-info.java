/** Implementation helpers of the HTTP layer (byte classes, line search, quoting); not exported. */
package dev.quarry.http.internal;
