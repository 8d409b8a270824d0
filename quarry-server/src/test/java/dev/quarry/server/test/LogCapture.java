package dev.quarry.server.test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Captures what the server logs under a logger name (its children included), every level, for tests that state what
 * is logged and how often. {@link System.Logger} goes to {@code java.util.logging} in tests, so records are captured
 * there. Close it to detach and restore the logger's level.
 */
public final class LogCapture implements AutoCloseable {
    private final Logger logger;
    private final Level previousLevel;
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            records.add(record);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    private LogCapture(String name) {
        logger = Logger.getLogger(name);
        previousLevel = logger.getLevel();
        handler.setLevel(Level.ALL);
        logger.setLevel(Level.ALL);
        logger.addHandler(handler);
    }

    /**
     * @param name a logger name, e.g. {@code dev.quarry}
     * @return a capture of it and its children, started
     */
    public static LogCapture of(String name) {
        return new LogCapture(name);
    }

    /** @return the records at WARNING or above */
    public List<LogRecord> warnings() {
        return matching(r -> r.getLevel().intValue() >= Level.WARNING.intValue());
    }

    /**
     * @param condition what to keep
     * @return the records that match it, in order
     */
    public List<LogRecord> matching(Predicate<LogRecord> condition) {
        return records.stream().filter(condition).toList();
    }

    /** @return every record captured so far, as text: level, message and exception */
    public String describe() {
        StringBuilder text = new StringBuilder();
        for (LogRecord record : records) {
            text.append(record.getLevel())
                    .append(' ')
                    .append(record.getMessage())
                    .append(record.getThrown() == null ? "" : " [" + record.getThrown() + "]")
                    .append('\n');
        }
        return text.toString();
    }

    @Override
    public void close() {
        logger.removeHandler(handler);
        logger.setLevel(previousLevel);
    }
}
