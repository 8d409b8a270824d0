/** Implementation details of quarry-io; not part of the API. */
package dev.quarry.io.internal;
