/**
 * The server API: {@link dev.quarry.server.Server}, {@link dev.quarry.server.Request},
 * {@link dev.quarry.server.Response}, the two handler shapes, {@link dev.quarry.server.Router} and
 * {@link dev.quarry.server.Content}.
 */
package dev.quarry.server;
