package io.rdmamon.model;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads a port or host sample straight from its JSON tokens: the fast path of {@link RecordParser} for the two
 * topics that carry every sample of the cluster, where building a tree and then mapping it was most of the decoding
 * cost. It accepts only the plain shape (a field given twice counts once, its last value, as in a tree; every value of
 * exactly its JSON type; unknown fields skipped) and answers {@code null} for anything else: a missing required
 * field, a string where a number belongs, a float where an integer belongs, trailing content. {@link RecordParser}
 * then takes its general path, which says precisely what is wrong, so both paths accept and refuse the same records.
 */
final class SampleJsonReader {
    private SampleJsonReader() {
    }

    /** Thrown by the value readers when a value is not of its plain JSON type; no stack trace, it is expected. */
    private static final class NotPlain extends Exception {
        NotPlain() {
            super(null, null, false, false);
        }
    }

    private static final NotPlain NOT_PLAIN = new NotPlain();

    /**
     * The port sample in {@code bytes}, or null when it is not plainly well-formed.
     *
     * @throws IOException when the bytes are not JSON
     */
    static PortSample portSample(byte[] bytes, int version) throws IOException {
        try (JsonParser p = Json.MAPPER.getFactory().createParser(bytes)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            Integer v = null;
            Integer port = null;
            Long ts = null;
            long intervalMs = 0;
            Long rate = null;
            String node = null;
            String device = null;
            String source = null;
            String state = null;
            String physState = null;
            String linkLayer = null;
            Double tx = null;
            Double rx = null;
            Double txPackets = null;
            Double rxPackets = null;
            Map<String, Long> errors = null;
            Map<String, Long> errorClasses = null;
            String field;
            while ((field = p.nextFieldName()) != null) {
                JsonToken t = p.nextToken();
                switch (field) {
                    case "v" -> v = intValue(p, t);
                    case "node" -> node = requiredText(p, t);
                    case "device" -> device = requiredText(p, t);
                    case "port" -> port = intValue(p, t);
                    case "ts" -> ts = longValue(p, t);
                    case "intervalMs" -> intervalMs = longValue(p, t);
                    case "source" -> source = text(p, t);
                    case "state" -> state = text(p, t);
                    case "physState" -> physState = text(p, t);
                    case "linkLayer" -> linkLayer = text(p, t);
                    case "rateBytesPerSec" -> rate = t == JsonToken.VALUE_NULL ? null : longValue(p, t);
                    case "txBytesPerSec" -> tx = number(p, t);
                    case "rxBytesPerSec" -> rx = number(p, t);
                    case "txPacketsPerSec" -> txPackets = number(p, t);
                    case "rxPacketsPerSec" -> rxPackets = number(p, t);
                    case "errors" -> errors = counts(p, t);
                    case "errorClasses" -> errorClasses = counts(p, t);
                    default -> p.skipChildren();
                }
            }
            if (p.currentToken() != JsonToken.END_OBJECT || p.nextToken() != null || v == null || v != version
                    || node == null || device == null || port == null || ts == null) {
                return null;
            }
            return new PortSample(v, node, device, port, ts, intervalMs, source, state, physState, linkLayer, rate,
                    tx, rx, txPackets, rxPackets, errors, errorClasses);
        } catch (NotPlain e) {
            return null;
        }
    }

    /**
     * The host sample in {@code bytes}, or null when it is not plainly well-formed.
     *
     * @throws IOException when the bytes are not JSON
     */
    static HostIfaceSample hostSample(byte[] bytes, int version) throws IOException {
        try (JsonParser p = Json.MAPPER.getFactory().createParser(bytes)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            Integer v = null;
            Long ts = null;
            long intervalMs = 0;
            String node = null;
            String iface = null;
            Double tx = null;
            Double rx = null;
            Double txPackets = null;
            Double rxPackets = null;
            Map<String, Long> errors = null;
            String field;
            while ((field = p.nextFieldName()) != null) {
                JsonToken t = p.nextToken();
                switch (field) {
                    case "v" -> v = intValue(p, t);
                    case "node" -> node = requiredText(p, t);
                    case "iface" -> iface = requiredText(p, t);
                    case "ts" -> ts = longValue(p, t);
                    case "intervalMs" -> intervalMs = longValue(p, t);
                    case "txBytesPerSec" -> tx = number(p, t);
                    case "rxBytesPerSec" -> rx = number(p, t);
                    case "txPacketsPerSec" -> txPackets = number(p, t);
                    case "rxPacketsPerSec" -> rxPackets = number(p, t);
                    case "errors" -> errors = counts(p, t);
                    default -> p.skipChildren();
                }
            }
            if (p.currentToken() != JsonToken.END_OBJECT || p.nextToken() != null || v == null || v != version
                    || node == null || iface == null || ts == null) {
                return null;
            }
            return new HostIfaceSample(v, node, iface, ts, intervalMs, tx, rx, txPackets, rxPackets, errors);
        } catch (NotPlain e) {
            return null;
        }
    }

    private static int intValue(JsonParser p, JsonToken t) throws IOException, NotPlain {
        if (t != JsonToken.VALUE_NUMBER_INT || p.getNumberType() != JsonParser.NumberType.INT) {
            throw NOT_PLAIN;
        }
        return p.getIntValue();
    }

    private static long longValue(JsonParser p, JsonToken t) throws IOException, NotPlain {
        if (t != JsonToken.VALUE_NUMBER_INT || p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
            throw NOT_PLAIN;
        }
        return p.getLongValue();
    }

    /** A required name: a string that is not blank (RecordParser's general path says why otherwise). */
    private static String requiredText(JsonParser p, JsonToken t) throws IOException, NotPlain {
        if (t != JsonToken.VALUE_STRING) {
            throw NOT_PLAIN;
        }
        String text = p.getText();
        if (text.isBlank()) {
            throw NOT_PLAIN;
        }
        return text;
    }

    private static String text(JsonParser p, JsonToken t) throws IOException, NotPlain {
        if (t == JsonToken.VALUE_NULL) {
            return null;
        }
        if (t != JsonToken.VALUE_STRING) {
            throw NOT_PLAIN;
        }
        return p.getText();
    }

    private static Double number(JsonParser p, JsonToken t) throws IOException, NotPlain {
        if (t == JsonToken.VALUE_NULL) {
            return null;
        }
        if (t != JsonToken.VALUE_NUMBER_FLOAT && t != JsonToken.VALUE_NUMBER_INT) {
            throw NOT_PLAIN;
        }
        return p.getDoubleValue();
    }

    private static Map<String, Long> counts(JsonParser p, JsonToken t) throws IOException, NotPlain {
        if (t == JsonToken.VALUE_NULL) {
            return null;
        }
        if (t != JsonToken.START_OBJECT) {
            throw NOT_PLAIN;
        }
        Map<String, Long> counts = new LinkedHashMap<>();
        String name;
        while ((name = p.nextFieldName()) != null) {
            counts.put(name, longValue(p, p.nextToken()));
        }
        return counts;
    }
}
