package io.rdmamon.support;

/** Bad input is logged with its text, cut short so that one huge record cannot flood the log. */
public final class Excerpt {
    private Excerpt() {
    }

    /** {@code text} itself when at most {@code maxChars} long, else its first {@code maxChars} and "...". */
    public static String of(String text, int maxChars) {
        return text.length() <= maxChars ? text : text.substring(0, maxChars) + "...";
    }
}
