package dev.quarry.http;

import java.util.Collection;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A named set of allowed leniencies of one kind ({@link HttpCompliance.Violation} or {@link UriCompliance.Violation}).
 * The shared half of both modes: the subclasses add their presets and their copy-with-changes factories.
 *
 * <p>Thread-safety: immutable. Cost: {@link #allows} is one bit test, because parsers ask it on hot paths.
 *
 * @param <V> the kind of leniency
 */
public abstract sealed class ComplianceMode<V extends Enum<V> & ComplianceViolation>
        permits HttpCompliance, UriCompliance {

    private final String name;
    private final Set<V> allowed;
    private final int bits;

    ComplianceMode(String name, EnumSet<V> allowed) {
        this.name = Objects.requireNonNull(name, "name");
        this.allowed = Collections.unmodifiableSet(EnumSet.copyOf(allowed));
        int b = 0;
        for (V violation : allowed) {
            b |= 1 << violation.ordinal();
        }
        this.bits = b;
    }

    /** @return a new set holding {@code base} plus {@code added} minus {@code removed} */
    static <V extends Enum<V>> EnumSet<V> combine(Class<V> type, Collection<V> base, List<V> added, List<V> removed) {
        EnumSet<V> set = EnumSet.noneOf(type);
        set.addAll(base);
        set.addAll(added);
        set.removeAll(removed);
        return set;
    }

    /** @return whether the parser may accept {@code violation} */
    public final boolean allows(V violation) {
        return (bits & (1 << violation.ordinal())) != 0;
    }

    /** @return the allowed leniencies */
    public final Set<V> allowed() {
        return allowed;
    }

    /** @return the mode's name */
    public final String name() {
        return name;
    }

    @Override
    public final String toString() {
        return name + allowed;
    }
}
