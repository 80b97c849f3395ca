package io.rdmamon.streams;

import io.rdmamon.model.DeadLetter;

/** An input record after parsing: the value, or the dead letter that replaces it. */
record Decoded<T>(T value, DeadLetter deadLetter) {
    boolean ok() {
        return deadLetter == null;
    }
}
