package io.rdmamon.collector.sysfs;

import java.math.BigDecimal;

/**
 * The nominal rate in a port's {@code rate} file, {@code "<N>[.5] Gb/sec (<W>X<SPEED>)"}: {@code 100 Gb/sec (4X EDR)},
 * {@code 2.5 Gb/sec (1X SDR)}, {@code 10 Gb/sec (4X)}. 1 Gb/s is 125,000,000 bytes/s.
 */
public final class PortRate {
    static final long BYTES_PER_SEC_PER_GBIT = 125_000_000L;
    private static final String UNIT = " Gb/sec";

    private PortRate() {
    }

    /** Bytes per second, or {@code null} when the text is not a rate. */
    public static Long bytesPerSec(String text) {
        if (text == null) {
            return null;
        }
        int unit = text.indexOf(UNIT);
        if (unit <= 0) {
            return null;
        }
        try {
            BigDecimal gbits = new BigDecimal(text.substring(0, unit).trim());
            if (gbits.signum() < 0) {
                return null;
            }
            return gbits.multiply(BigDecimal.valueOf(BYTES_PER_SEC_PER_GBIT)).longValueExact();
        } catch (NumberFormatException | ArithmeticException e) {
            return null;
        }
    }
}
