package io.rdmamon.sink;

/** The body of one {@code /write} request: {@code points} lines of line protocol, UTF-8. */
public record WriteBody(byte[] lines, int points) {
}
