package dev.quarry.http;

/**
 * A leniency that a compliance mode may allow: a departure from the strict grammar that some peers need, named and
 * tied to the RFC section that permits or forbids it.
 *
 * <p>Thread-safety: implementations are immutable enum constants.
 */
public interface ComplianceViolation {

    /** @return the constant's name, e.g. {@code OBS_FOLD} */
    String name();

    /** @return the RFC section that governs it, e.g. {@code RFC 9112 §5.2} */
    String rfcSection();

    /** @return what allowing it accepts, in one sentence */
    String description();
}
