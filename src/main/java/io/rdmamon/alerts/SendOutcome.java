package io.rdmamon.alerts;

import java.util.List;

/**
 * What one {@link HttpSender#send} achieved: the first {@code handled} alerts are finished (accepted, or rejected as
 * listed); when {@code failure} is set the rest must be retried later.
 */
record SendOutcome(int handled, List<Rejection> rejections, String failure) {

    boolean complete() {
        return failure == null;
    }

    /** The alert at {@code index} was refused by the receiver with this HTTP status and answer. */
    record Rejection(int index, int status, String reason) {
    }
}
