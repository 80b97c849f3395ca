package io.rdmamon.collector;

/**
 * One line of {@code eadm stat -d <dev> -l}: live traffic of a whole eRDMA device, in bytes and packets per second,
 * with the monotonic time ({@link System#nanoTime()}) at which the line was read.
 */
public record EadmRate(String device, double rxBytesPerSec, double rxPacketsPerSec, double txBytesPerSec,
                       double txPacketsPerSec, long readAtNanos) {
}
