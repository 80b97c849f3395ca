package io.rdmamon.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Reads one record of a topic contract from its JSON bytes and says precisely why it cannot be used: not JSON, not
 * an object, an unknown schema version {@code v}, a missing or mistyped required field. Jackson alone would turn a
 * missing {@code int} into 0, which the contracts forbid, so required fields are checked on the tree first.
 */
public final class RecordParser<T> {

    /** A parsed record, or the reason it was rejected. Exactly one of the two is non-null. */
    public record Parsed<T>(T value, String error) {
        public boolean ok() {
            return error == null;
        }
    }

    private enum Kind { TEXT, INTEGER }

    private static final Set<String> JOB_STATES = Set.of(JobRecord.PENDING, JobRecord.RUNNING, JobRecord.SUCCEEDED,
            JobRecord.FAILED, JobRecord.DELETED);
    private static final Map<String, Kind> RANK_FIELDS = fields("rank", Kind.INTEGER, "node", Kind.TEXT);

    public static final RecordParser<PortSample> PORT_SAMPLE = new RecordParser<>(PortSample.class,
            PortSample.VERSION, fields("node", Kind.TEXT, "device", Kind.TEXT, "port", Kind.INTEGER, "ts", Kind.INTEGER),
            tree -> null);
    public static final RecordParser<HostIfaceSample> HOST_SAMPLE = new RecordParser<>(HostIfaceSample.class,
            HostIfaceSample.VERSION, fields("node", Kind.TEXT, "iface", Kind.TEXT, "ts", Kind.INTEGER), tree -> null);
    public static final RecordParser<JobRecord> JOB = new RecordParser<>(JobRecord.class, JobRecord.VERSION,
            fields("uid", Kind.TEXT, "job", Kind.TEXT, "state", Kind.TEXT, "updatedAt", Kind.INTEGER),
            RecordParser::checkJob);

    private final Class<T> type;
    private final int version;
    private final Map<String, Kind> required;
    private final Function<JsonNode, String> extraCheck;

    private RecordParser(Class<T> type, int version, Map<String, Kind> required,
                         Function<JsonNode, String> extraCheck) {
        this.type = type;
        this.version = version;
        this.required = required;
        this.extraCheck = extraCheck;
    }

    public Parsed<T> parse(byte[] bytes) {
        if (bytes == null || bytes.length == 0) {
            return new Parsed<>(null, "empty record");
        }
        JsonNode tree;
        try {
            tree = Json.MAPPER.readTree(bytes);
        } catch (IOException e) {
            return new Parsed<>(null, "not JSON: " + firstLine(e));
        }
        if (tree == null || !tree.isObject()) {
            return new Parsed<>(null, "not a JSON object");
        }
        String problem = checkVersion(tree);
        if (problem == null) {
            problem = checkRequired(tree, required);
        }
        if (problem == null) {
            problem = extraCheck.apply(tree);
        }
        if (problem != null) {
            return new Parsed<>(null, problem);
        }
        try {
            return new Parsed<>(Json.MAPPER.treeToValue(tree, type), null);
        } catch (JsonProcessingException e) {
            return new Parsed<>(null, "not a valid " + type.getSimpleName() + ": " + firstLine(e));
        }
    }

    private String checkVersion(JsonNode tree) {
        JsonNode v = tree.get("v");
        if (v == null || v.isNull()) {
            return "missing field 'v' (schema version)";
        }
        if (!v.isIntegralNumber()) {
            return "field 'v' is not an integer: " + v;
        }
        if (v.asInt() != version) {
            return "unknown schema version v=" + v.asText() + " (this rdmamon reads v=" + version + ")";
        }
        return null;
    }

    private static String checkRequired(JsonNode tree, Map<String, Kind> fields) {
        for (Map.Entry<String, Kind> field : fields.entrySet()) {
            JsonNode node = tree.get(field.getKey());
            if (node == null || node.isNull()) {
                return "missing field '" + field.getKey() + "'";
            }
            boolean fits = field.getValue() == Kind.TEXT ? node.isTextual() && !node.asText().isBlank()
                    : node.isIntegralNumber();
            if (!fits) {
                return "field '" + field.getKey() + "' is not " + (field.getValue() == Kind.TEXT ? "a non-empty string"
                        : "an integer") + ": " + node;
            }
        }
        return null;
    }

    private static String checkJob(JsonNode tree) {
        String state = tree.get("state").asText();
        if (!JOB_STATES.contains(state)) {
            return "unknown job state '" + state + "' (one of " + String.join(", ", JOB_STATES.stream().sorted()
                    .toList()) + ")";
        }
        JsonNode ranks = tree.get("ranks");
        if (ranks == null || ranks.isNull()) {
            return null;
        }
        if (!ranks.isArray()) {
            return "field 'ranks' is not an array";
        }
        for (int i = 0; i < ranks.size(); i++) {
            JsonNode rank = ranks.get(i);
            String problem = rank.isObject() ? checkRequired(rank, RANK_FIELDS) : "not an object";
            if (problem == null && rank.has("devices") && !rank.get("devices").isArray()) {
                problem = "field 'devices' is not an array";
            }
            if (problem != null) {
                return "ranks[" + i + "]: " + problem;
            }
        }
        return null;
    }

    private static Map<String, Kind> fields(Object... nameKindPairs) {
        Map<String, Kind> out = new LinkedHashMap<>();
        for (int i = 0; i < nameKindPairs.length; i += 2) {
            out.put((String) nameKindPairs[i], (Kind) nameKindPairs[i + 1]);
        }
        return out;
    }

    private static String firstLine(Exception e) {
        String message = String.valueOf(e.getMessage());
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
