package dev.quarry.cli;

import java.util.logging.LogManager;

/**
 * The {@code java.util.logging} manager of the command line: the JDK's own, except that it does not close its handlers
 * when the JVM starts shutting down. The JDK's manager does so in a shutdown hook of its own, which runs at the same
 * time as Quarry's: what a graceful stop after SIGTERM logs (draining N connections, stopped in X ms) was lost. The
 * handlers are closed by {@link #closeHandlers()} once the server has stopped.
 *
 * <p>Installed by {@code Main} through the {@code java.util.logging.manager} system property unless the user set it.
 */
public final class ShutdownLogManager extends LogManager {
    private static volatile ShutdownLogManager instance;

    /** Called by {@link LogManager} when it starts, through the system property. */
    public ShutdownLogManager() {
        instance = this;
    }

    @Override
    public void reset() {
        if (isShuttingDown()) {
            return; // the JDK's shutdown hook: keep logging until closeHandlers()
        }
        super.reset();
    }

    /** Flushes and closes the handlers: the last thing the command's shutdown hook does. */
    static void closeHandlers() {
        ShutdownLogManager manager = instance;
        if (manager != null) {
            manager.closeNow();
        }
    }

    private void closeNow() {
        super.reset();
    }

    /** @return whether the JVM is running its shutdown hooks (it then refuses new ones: the documented test) */
    private static boolean isShuttingDown() {
        try {
            Thread probe = new Thread(() -> {});
            Runtime.getRuntime().addShutdownHook(probe);
            Runtime.getRuntime().removeShutdownHook(probe);
            return false;
        } catch (IllegalStateException x) {
            return true;
        }
    }
}
