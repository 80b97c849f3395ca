package io.rdmamon.streams;

import io.rdmamon.model.DeadLetter;

/**
 * An input record after parsing: the value, or the dead letter that replaces it. The decoder sends each to its own
 * branch by name, so nothing downstream asks which it is.
 */
record Decoded<T>(T value, DeadLetter deadLetter) {
}
