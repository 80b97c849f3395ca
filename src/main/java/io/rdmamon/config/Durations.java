package io.rdmamon.config;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses operator-friendly durations: {@code 100ms}, {@code 1s}, {@code 5m}, {@code 2h}, {@code 7d}; a bare number is milliseconds. */
public final class Durations {
    private static final Pattern FORMAT = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h|d)?");

    private Durations() {
    }

    public static Duration parse(String text) {
        Matcher m = FORMAT.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("not a duration: '" + text + "' (use e.g. 500ms, 1s, 5m, 2h, 7d)");
        }
        double amount = Double.parseDouble(m.group(1));
        String unit = m.group(2) == null ? "ms" : m.group(2);
        double millis = switch (unit) {
            case "ms" -> amount;
            case "s" -> amount * 1_000;
            case "m" -> amount * 60_000;
            case "h" -> amount * 3_600_000;
            case "d" -> amount * 86_400_000;
            default -> throw new IllegalStateException(unit);
        };
        return Duration.ofMillis(Math.round(millis));
    }

    /** For picocli options: {@code @Option(converter = Durations.Converter.class)}. */
    public static final class Converter implements picocli.CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            return parse(value);
        }
    }
}
