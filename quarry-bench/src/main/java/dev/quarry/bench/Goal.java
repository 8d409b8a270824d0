package dev.quarry.bench;

import java.util.Locale;

/**
 * One benchmark goal: a measured ratio (ours over the peer's, higher is better) against its target.
 *
 * @param name a stable, dotted name, e.g. {@code pool.duplex.vs-jetty}
 * @param ratio the measured ratio
 * @param target the ratio the goal asks for
 */
public record Goal(String name, double ratio, double target) {

    /** @return whether the measured ratio reaches the target */
    public boolean met() {
        return ratio >= target;
    }

    /** @return the line every benchmark script ends with: {@code GOAL name ratio=.. target=.. MET|MISSED} */
    public String line() {
        return String.format(
                Locale.ROOT, "GOAL %s ratio=%.2f target=%.2f %s", name, ratio, target, met() ? "MET" : "MISSED");
    }
}
