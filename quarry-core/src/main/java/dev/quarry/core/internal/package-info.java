/** Implementation details shared with Quarry's other modules; not part of the API. */
package dev.quarry.core.internal;
