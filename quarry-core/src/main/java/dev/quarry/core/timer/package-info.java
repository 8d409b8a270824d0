/** The hashed-wheel timer (O(1) schedule and cancel) and idle timeouts that do not reschedule on every activity. */
package dev.quarry.core.timer;
