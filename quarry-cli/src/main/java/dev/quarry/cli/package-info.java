/** The {@code quarry} command: subcommands, their options, and the apps they run. */
package dev.quarry.cli;
