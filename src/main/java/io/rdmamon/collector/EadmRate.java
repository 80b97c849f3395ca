package io.rdmamon.collector;

/**
 * One line of {@code eadm stat -d <dev> -l}: live traffic of a whole eRDMA device, in bytes and packets per second,
 * with the monotonic time ({@link System#nanoTime()}) at which the line was read.
 *
 * <p>Byte rates are always known (a line without them is not a rate). Packet rates are {@code null} when the line
 * carried no {@code p/s} figure: unknown, never zero.
 */
public record EadmRate(String device, double rxBytesPerSec, Double rxPacketsPerSec, double txBytesPerSec,
                       Double txPacketsPerSec, long readAtNanos) {
}
