/** The {@code quarry} command line: {@code quarry plaintext}, {@code quarry serve}. */
module dev.quarry.cli {
    requires dev.quarry.server;

    exports dev.quarry.cli;
}
