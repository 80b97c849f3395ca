package io.rdmamon.collector.sysfs;

/**
 * A port's {@code state} or {@code phys_state} as the kernel prints it, {@code "<id>: <name>"}: {@code 4: ACTIVE},
 * {@code 5: LinkUp}. The number is what the spec defines; the name is kept as printed, because some drivers print a
 * mismatched one (the procfs fixture's {@code phys_state} reads {@code 4: ACTIVE}). {@code id} is {@code null} when the
 * text carries no number.
 */
public record PortState(Integer id, String name) {

    /** Parses {@code "4: ACTIVE"}; {@code null} for {@code null} or blank text. */
    public static PortState parse(String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        int colon = text.indexOf(':');
        if (colon > 0) {
            String number = text.substring(0, colon).trim();
            if (isDigits(number)) {
                return new PortState(Integer.valueOf(number), text.substring(colon + 1).trim());
            }
        }
        return new PortState(null, text.trim());
    }

    private static boolean isDigits(String text) {
        if (text.isEmpty() || text.length() > 9) {
            return false;
        }
        for (int i = 0; i < text.length(); i++) {
            if (!Character.isDigit(text.charAt(i))) {
                return false;
            }
        }
        return true;
    }
}
