/** The {@code quarry} command line: {@code quarry plaintext}, {@code quarry serve}, {@code quarry get}. */
module dev.quarry.cli {
    requires dev.quarry.server;
    requires dev.quarry.client; // quarry get
    requires java.logging; // ShutdownLogManager: keeps the JDK's console logging alive through a graceful stop

    exports dev.quarry.cli;
}
