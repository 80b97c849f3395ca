package io.rdmamon.collector;

import io.rdmamon.model.HostIfaceSample;
import io.rdmamon.model.PortSample;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

/**
 * The collector's records as JSON, written by hand into one reused buffer: the same bytes as {@link
 * io.rdmamon.model.Json} (Jackson) writes for {@link PortSample} and {@link HostIfaceSample} — fields in the order of
 * their {@code @JsonPropertyOrder}, {@code null} written out, an empty {@code errorClasses} left out, doubles as {@link
 * Double#toString}, Jackson's string escapes — which {@code SampleJsonTest} checks against Jackson itself. Why not
 * Jackson: on the node agent, Jackson's databind costs more CPU per record than reading the counters behind it, and
 * its classes cost start-up time and metaspace in every GPU node's collector. Not thread-safe: one per sampling
 * thread.
 */
public final class SampleJson {
    private static final byte[] HEX = "0123456789ABCDEF".getBytes(StandardCharsets.US_ASCII);

    private byte[] buf = new byte[1024];
    private int len;

    /** The record of {@code topic rdma.port-samples}. */
    public byte[] portSample(PortSample s) {
        len = 0;
        name('{', "v").number(s.v());
        name(',', "node").string(s.node());
        name(',', "device").string(s.device());
        name(',', "port").number(s.port());
        name(',', "ts").number(s.ts());
        name(',', "intervalMs").number(s.intervalMs());
        name(',', "source").string(s.source());
        name(',', "state").string(s.state());
        name(',', "physState").string(s.physState());
        name(',', "linkLayer").string(s.linkLayer());
        name(',', "rateBytesPerSec").number(s.rateBytesPerSec());
        name(',', "txBytesPerSec").number(s.txBytesPerSec());
        name(',', "rxBytesPerSec").number(s.rxBytesPerSec());
        name(',', "txPacketsPerSec").number(s.txPacketsPerSec());
        name(',', "rxPacketsPerSec").number(s.rxPacketsPerSec());
        name(',', "errors").counts(s.errors());
        if (!s.errorClasses().isEmpty()) {
            name(',', "errorClasses").counts(s.errorClasses());
        }
        return end();
    }

    /** The record of {@code topic rdma.host-samples}. */
    public byte[] hostSample(HostIfaceSample s) {
        len = 0;
        name('{', "v").number(s.v());
        name(',', "node").string(s.node());
        name(',', "iface").string(s.iface());
        name(',', "ts").number(s.ts());
        name(',', "intervalMs").number(s.intervalMs());
        name(',', "txBytesPerSec").number(s.txBytesPerSec());
        name(',', "rxBytesPerSec").number(s.rxBytesPerSec());
        name(',', "txPacketsPerSec").number(s.txPacketsPerSec());
        name(',', "rxPacketsPerSec").number(s.rxPacketsPerSec());
        name(',', "errors").counts(s.errors());
        return end();
    }

    private byte[] end() {
        put('}');
        return Arrays.copyOf(buf, len);
    }

    private SampleJson name(char before, String name) {
        put(before);
        string(name);
        put(':');
        return this;
    }

    private void counts(Map<String, Long> counts) {
        put('{');
        boolean first = true;
        for (Map.Entry<String, Long> e : counts.entrySet()) {
            if (!first) {
                put(',');
            }
            first = false;
            string(e.getKey());
            put(':');
            number(e.getValue());
        }
        put('}');
    }

    private void number(long value) {
        ascii(Long.toString(value));
    }

    private void number(Long value) {
        if (value == null) {
            ascii("null");
        } else {
            number(value.longValue());
        }
    }

    /** As Jackson: a finite double as {@link Double#toString}, NaN and the infinities as strings. */
    private void number(Double value) {
        if (value == null) {
            ascii("null");
        } else if (Double.isFinite(value)) {
            ascii(Double.toString(value));
        } else {
            string(Double.toString(value));
        }
    }

    /**
     * Jackson's escapes: {@code "} and {@code \}, short forms for \b \t \n \f \r, {@code \}{@code uXXXX} for other
     * control characters and for surrogates; the rest as UTF-8.
     */
    private void string(String value) {
        if (value == null) {
            ascii("null");
            return;
        }
        put('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '"' || c == '\\') {
                put('\\');
                put(c);
            } else if (c >= 0x20 && c < 0x80) {
                put(c);
            } else if (c < 0x20) {
                escapeControl(c);
            } else if (Character.isSurrogate(c)) {
                // Jackson 2.21 escapes each half of a pair (and a lone half) rather than writing 4-byte UTF-8
                unicodeEscape(c);
            } else {
                utf8(c);
            }
        }
        put('"');
    }

    private void escapeControl(char c) {
        char shortForm = switch (c) {
            case '\b' -> 'b';
            case '\t' -> 't';
            case '\n' -> 'n';
            case '\f' -> 'f';
            case '\r' -> 'r';
            default -> 0;
        };
        if (shortForm == 0) {
            unicodeEscape(c);
        } else {
            put('\\');
            put(shortForm);
        }
    }

    private void unicodeEscape(char c) {
        put('\\');
        put('u');
        putByte(HEX[c >> 12]);
        putByte(HEX[(c >> 8) & 0xF]);
        putByte(HEX[(c >> 4) & 0xF]);
        putByte(HEX[c & 0xF]);
    }

    /** A character of the basic plane, not a surrogate, from U+0080 on, in UTF-8. */
    private void utf8(char c) {
        if (c < 0x800) {
            putByte((byte) (0xC0 | (c >> 6)));
        } else {
            putByte((byte) (0xE0 | (c >> 12)));
            putByte((byte) (0x80 | ((c >> 6) & 0x3F)));
        }
        putByte((byte) (0x80 | (c & 0x3F)));
    }

    private void ascii(String text) {
        for (int i = 0; i < text.length(); i++) {
            put(text.charAt(i));
        }
    }

    private void put(char c) {
        putByte((byte) c);
    }

    private void putByte(byte b) {
        if (len == buf.length) {
            buf = Arrays.copyOf(buf, buf.length * 2);
        }
        buf[len++] = b;
    }
}
