package io.rdmamon.collector.eadm;

import io.rdmamon.collector.EadmRate;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads one line of {@code eadm stat -d <dev> -l}, e.g. {@code rx: 914.89 MiB/s 150423 p/s; tx: 914.66 MiB/s 147128 p/s}.
 *
 * <p>eadm's output is documented only in screenshots, so the parser is lenient where that cannot give a wrong number:
 * any case, any spacing, either order of {@code rx}/{@code tx}, an optional colon, text around the figures, terminal
 * escape codes. Units: {@code B}, {@code KiB}, {@code MiB}, {@code GiB}, {@code TiB} per second are powers of 1024
 * (1 MiB = 1,048,576 B), as eadm prints them; {@code KB}, {@code MB}, {@code GB}, {@code TB} are taken as the SI
 * powers of 1000 their names mean. Bits per second are not accepted. A packet figure ({@code p/s}, {@code pps},
 * {@code pkt/s}) is optional; without it the packet rate is unknown ({@code null}).
 *
 * <p>A line without a byte rate for both directions, with a number that is not plain decimal ({@code 1,234}, a sign)
 * or with an unknown unit gives no rate: the caller logs its text and counts it.
 */
public final class EadmLineParser {
    private static final String NUMBER = "(\\d+(?:\\.\\d+)?)";
    private static final Pattern DIRECTION = Pattern.compile(
            "\\b(rx|tx)\\s*:?\\s*" + NUMBER + "\\s*([kmgt]i?)?b(?:ytes?)?\\s*/\\s*s(?:ec)?\\b"
                    + "(?:[\\s,(]*" + NUMBER + "\\s*(?:pps|(?:p|pkts?|packets)\\s*/\\s*s(?:ec)?)\\b)?",
            Pattern.CASE_INSENSITIVE);
    private static final Pattern ANSI_ESCAPE = Pattern.compile("\u001B\\[[0-9;?]*[ -/]*[@-~]");

    private EadmLineParser() {
    }

    /** The rate on {@code line}, read from {@code device} at {@code readAtNanos}; empty when the line holds none. */
    public static Optional<EadmRate> parse(String device, String line, long readAtNanos) {
        // eadm writing to a pipe prints no escape codes: the common line skips a regex pass and a copy
        String text = line.indexOf('\u001B') < 0 ? line : ANSI_ESCAPE.matcher(line).replaceAll("");
        Matcher m = DIRECTION.matcher(text);
        Direction rx = null;
        Direction tx = null;
        while (m.find()) {
            Direction d = new Direction(bytesPerSec(m.group(2), m.group(3)),
                    m.group(4) == null ? null : Double.parseDouble(m.group(4)));
            if (!Double.isFinite(d.bytesPerSec) || (d.packetsPerSec != null && !Double.isFinite(d.packetsPerSec))) {
                return Optional.empty();
            }
            // eadm prints one sample per line; a second figure for the same direction would be a glued next line
            if (m.group(1).equalsIgnoreCase("rx")) {
                rx = rx == null ? d : rx;
            } else {
                tx = tx == null ? d : tx;
            }
        }
        if (rx == null || tx == null) {
            return Optional.empty();
        }
        return Optional.of(new EadmRate(device, rx.bytesPerSec, rx.packetsPerSec, tx.bytesPerSec, tx.packetsPerSec,
                readAtNanos));
    }

    private static double bytesPerSec(String number, String unitPrefix) {
        double value = Double.parseDouble(number);
        if (unitPrefix == null) {
            return value;
        }
        String prefix = unitPrefix.toLowerCase(Locale.ROOT);
        double base = prefix.endsWith("i") ? 1024 : 1000;
        int power = switch (prefix.charAt(0)) {
            case 'k' -> 1;
            case 'm' -> 2;
            case 'g' -> 3;
            case 't' -> 4;
            default -> throw new IllegalStateException("unit prefix " + unitPrefix);
        };
        return value * Math.pow(base, power);
    }

    private record Direction(double bytesPerSec, Double packetsPerSec) {
    }
}
