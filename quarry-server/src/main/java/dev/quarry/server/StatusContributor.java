package dev.quarry.server;

import java.util.Map;

/**
 * Something that adds a section to the status page and {@code status.json}, e.g. the throttle's buckets and waiting
 * writes. Values are numbers, strings, booleans, lists and maps of those, in display order.
 */
public interface StatusContributor {

    /** @return the section's title, e.g. {@code throttle} */
    String statusName();

    /** @return the section's values, a snapshot taken now; must be cheap and must not block */
    Map<String, Object> status();
}
