package io.rdmamon.sink;

import io.rdmamon.model.Rejection;

/** A record that breaks its topic's contract: the message names the field and value, the code tags the metric. */
final class InvalidRecordException extends IllegalArgumentException {
    private final String code;

    InvalidRecordException(Rejection rejection) {
        super(rejection.message());
        this.code = rejection.code();
    }

    /** One of {@link Rejection}'s codes. */
    String code() {
        return code;
    }
}
