package io.rdmamon.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Reads one record of a topic contract from its JSON bytes and says precisely why it cannot be used: not JSON, not
 * an object, an unknown schema version {@code v}, a missing or mistyped required field, or a value outside the
 * contract's range ({@link ContractChecks}: implausible times, negative or impossible rates, malformed names and
 * ranks). Jackson alone would turn a missing {@code int} into 0, which the contracts forbid, so required fields are
 * checked on the tree first. Port and host samples, every sample of the cluster, first try a fast path without a
 * tree ({@link SampleJsonReader}) that takes only plainly well-formed records and leaves the rest to the tree.
 *
 * <p>Every reader of the input topics parses with these, so all of them accept and refuse the same records. The
 * static parsers check against {@link ContractLimits#DEFAULT}; a role with configured limits uses
 * {@link #withLimits}.
 */
public final class RecordParser<T> {

    /**
     * A parsed record, or the reason it was rejected: {@code error} for people (names the field and value),
     * {@code code} for metrics (one of {@link Rejection}'s codes). Either {@code value} or both of the others are null.
     */
    public record Parsed<T>(T value, String error, String code) {
        public boolean ok() {
            return error == null;
        }

        static <T> Parsed<T> rejected(Rejection rejection) {
            return new Parsed<>(null, rejection.message(), rejection.code());
        }
    }

    /** The contract's value ranges for a record of the right shape: null when it keeps them. */
    private interface Check<T> {
        Rejection check(T value, long recordTimestamp, ContractLimits limits);
    }

    private enum Kind { TEXT, INTEGER }

    /** Reads a plainly well-formed record without a tree; null (or an exception) sends it down the general path. */
    private interface FastPath<T> {
        T read(byte[] bytes, int version) throws IOException;
    }

    private static final Set<String> JOB_STATES = Set.of(JobRecord.PENDING, JobRecord.RUNNING, JobRecord.SUCCEEDED,
            JobRecord.FAILED, JobRecord.DELETED);
    private static final Map<String, Kind> RANK_FIELDS = fields("rank", Kind.INTEGER, "node", Kind.TEXT);

    public static final RecordParser<PortSample> PORT_SAMPLE = new RecordParser<>(PortSample.class,
            PortSample.VERSION, fields("node", Kind.TEXT, "device", Kind.TEXT, "port", Kind.INTEGER, "ts", Kind.INTEGER),
            tree -> null, ContractChecks::portSample, ContractLimits.DEFAULT, SampleJsonReader::portSample);
    public static final RecordParser<HostIfaceSample> HOST_SAMPLE = new RecordParser<>(HostIfaceSample.class,
            HostIfaceSample.VERSION, fields("node", Kind.TEXT, "iface", Kind.TEXT, "ts", Kind.INTEGER), tree -> null,
            ContractChecks::hostSample, ContractLimits.DEFAULT, SampleJsonReader::hostSample);
    public static final RecordParser<GpuSample> GPU_SAMPLE = new RecordParser<>(GpuSample.class, GpuSample.VERSION,
            fields("node", Kind.TEXT, "gpu", Kind.INTEGER, "uuid", Kind.TEXT, "ts", Kind.INTEGER, "intervalMs",
                    Kind.INTEGER),
            tree -> null, ContractChecks::gpuSample, ContractLimits.DEFAULT, null);
    public static final RecordParser<JobRecord> JOB = new RecordParser<>(JobRecord.class, JobRecord.VERSION,
            fields("uid", Kind.TEXT, "job", Kind.TEXT, "state", Kind.TEXT, "updatedAt", Kind.INTEGER),
            RecordParser::checkJob, ContractChecks::job, ContractLimits.DEFAULT, null);
    public static final RecordParser<PodDeviceMap> POD_DEVICES = new RecordParser<>(PodDeviceMap.class,
            PodDeviceMap.VERSION, fields("node", Kind.TEXT, "ts", Kind.INTEGER), tree -> null,
            ContractChecks::podDevices, ContractLimits.DEFAULT, null);
    public static final RecordParser<NodeRecord> NODE = new RecordParser<>(NodeRecord.class, NodeRecord.VERSION,
            fields("node", Kind.TEXT, "state", Kind.TEXT, "at", Kind.INTEGER), RecordParser::checkNode,
            ContractChecks::node, ContractLimits.DEFAULT, null);

    private final Class<T> type;
    private final int version;
    private final Map<String, Kind> required;
    private final Function<JsonNode, Rejection> treeCheck;
    private final Check<T> valueCheck;
    private final ContractLimits limits;
    private final FastPath<T> fastPath;

    private RecordParser(Class<T> type, int version, Map<String, Kind> required,
                         Function<JsonNode, Rejection> treeCheck, Check<T> valueCheck, ContractLimits limits,
                         FastPath<T> fastPath) {
        this.type = type;
        this.version = version;
        this.required = required;
        this.treeCheck = treeCheck;
        this.valueCheck = valueCheck;
        this.limits = limits;
        this.fastPath = fastPath;
    }

    /** The same parser, checking against {@code limits} (a role's configured ones). */
    public RecordParser<T> withLimits(ContractLimits limits) {
        return new RecordParser<>(type, version, required, treeCheck, valueCheck, limits, fastPath);
    }

    /** The same parser with the tree path only: the reference the fast path is tested against. */
    RecordParser<T> withoutFastPath() {
        return new RecordParser<>(type, version, required, treeCheck, valueCheck, limits, null);
    }

    public ContractLimits limits() {
        return limits;
    }

    /** Parses a record that has no Kafka timestamp (e.g. a line of a file): record times get the fixed range only. */
    public Parsed<T> parse(byte[] bytes) {
        return parse(bytes, ContractChecks.NO_TIMESTAMP);
    }

    /**
     * Parses a record read from Kafka: its own times may be at most {@link ContractLimits#maxFutureMs()} ahead of
     * {@code recordTimestamp}, the Kafka record's timestamp (ignored when not positive).
     */
    public Parsed<T> parse(byte[] bytes, long recordTimestamp) {
        return check(read(bytes), recordTimestamp);
    }

    /**
     * The first half of {@link #parse(byte[], long)}: the record's shape (JSON, version, required fields, types)
     * without its value ranges, which {@link #check} adds. The stream app reads its inputs in two steps, because the
     * value is read where Kafka gives no timestamp (its deserializer) and its time is needed before the record is
     * processed (its timestamp extractor).
     */
    public Parsed<T> read(byte[] bytes) {
        if (bytes == null || bytes.length == 0) {
            return Parsed.rejected(new Rejection(Rejection.EMPTY, "empty record"));
        }
        T plain = readPlain(bytes);
        if (plain != null) {
            return new Parsed<>(plain, null, null);
        }
        JsonNode tree;
        try {
            tree = Json.MAPPER.readTree(bytes);
        } catch (IOException e) {
            return Parsed.rejected(new Rejection(Rejection.NOT_JSON, "not JSON: " + firstLine(e)));
        }
        if (tree == null || !tree.isObject()) {
            return Parsed.rejected(new Rejection(Rejection.NOT_OBJECT, "not a JSON object"));
        }
        Rejection problem = checkVersion(tree);
        if (problem == null) {
            problem = checkRequired(tree, required);
        }
        if (problem == null) {
            problem = treeCheck.apply(tree);
        }
        if (problem != null) {
            return Parsed.rejected(problem);
        }
        T value;
        try {
            value = Json.MAPPER.treeToValue(tree, type);
        } catch (JsonMappingException e) {
            // Jackson's first line names the Java type, not the field: name the field from its path
            return Parsed.rejected(new Rejection(Rejection.WRONG_TYPE, "not a valid " + type.getSimpleName()
                    + ": field '" + path(e) + "' has the wrong type or value: " + e.getOriginalMessage()));
        } catch (JsonProcessingException | IllegalArgumentException e) {
            return Parsed.rejected(new Rejection(Rejection.WRONG_TYPE, "not a valid " + type.getSimpleName() + ": "
                    + firstLine(e)));
        }
        return new Parsed<>(value, null, null);
    }

    /** The value ranges of {@code read}'s value, its times against {@code recordTimestamp} as in {@link #parse}. */
    public Parsed<T> check(Parsed<T> read, long recordTimestamp) {
        return read.ok() ? checked(read.value(), recordTimestamp) : read;
    }

    /** The record through the fast path, when it has one and the record is plainly well-formed; else null. */
    private T readPlain(byte[] bytes) {
        if (fastPath == null) {
            return null;
        }
        try {
            return fastPath.read(bytes, version);
        } catch (IOException e) {
            return null; // not JSON: the general path says where
        }
    }

    private Parsed<T> checked(T value, long recordTimestamp) {
        Rejection problem = valueCheck.check(value, recordTimestamp, limits);
        return problem == null ? new Parsed<>(value, null, null) : Parsed.rejected(problem);
    }

    private Rejection checkVersion(JsonNode tree) {
        JsonNode v = tree.get("v");
        if (v == null || v.isNull()) {
            return new Rejection(Rejection.MISSING_FIELD, "missing field 'v' (schema version)");
        }
        if (!v.isIntegralNumber()) {
            return new Rejection(Rejection.WRONG_TYPE, "field 'v' is not an integer: " + v);
        }
        if (!v.canConvertToInt() || v.asInt() != version) {
            return new Rejection(Rejection.UNKNOWN_VERSION, "unknown schema version v=" + v.asText()
                    + " (this rdmamon reads v=" + version + ")");
        }
        return null;
    }

    private static Rejection checkRequired(JsonNode tree, Map<String, Kind> fields) {
        for (Map.Entry<String, Kind> field : fields.entrySet()) {
            JsonNode node = tree.get(field.getKey());
            if (node == null || node.isNull()) {
                return new Rejection(Rejection.MISSING_FIELD, "missing field '" + field.getKey() + "'");
            }
            boolean fits = field.getValue() == Kind.TEXT ? node.isTextual() && !node.asText().isBlank()
                    : node.isIntegralNumber();
            if (!fits) {
                return new Rejection(Rejection.WRONG_TYPE, "field '" + field.getKey() + "' is not "
                        + (field.getValue() == Kind.TEXT ? "a non-empty string" : "an integer") + ": " + node);
            }
        }
        return null;
    }

    private static Rejection checkNode(JsonNode tree) {
        String state = tree.get("state").asText();
        if (!NodeRecord.PRESENT.equals(state) && !NodeRecord.DELETED.equals(state)) {
            return new Rejection(Rejection.UNKNOWN_VALUE, "unknown node state '" + state + "' (one of "
                    + NodeRecord.DELETED + ", " + NodeRecord.PRESENT + ")");
        }
        return null;
    }

    private static Rejection checkJob(JsonNode tree) {
        String state = tree.get("state").asText();
        if (!JOB_STATES.contains(state)) {
            return new Rejection(Rejection.UNKNOWN_VALUE, "unknown job state '" + state + "' (one of "
                    + String.join(", ", JOB_STATES.stream().sorted().toList()) + ")");
        }
        JsonNode ranks = tree.get("ranks");
        if (ranks == null || ranks.isNull()) {
            return null;
        }
        if (!ranks.isArray()) {
            return new Rejection(Rejection.WRONG_TYPE, "field 'ranks' is not an array");
        }
        for (int i = 0; i < ranks.size(); i++) {
            JsonNode rank = ranks.get(i);
            Rejection problem = rank.isObject() ? checkRequired(rank, RANK_FIELDS)
                    : new Rejection(Rejection.WRONG_TYPE, "not an object");
            if (problem == null && rank.has("devices") && !rank.get("devices").isArray()) {
                problem = new Rejection(Rejection.WRONG_TYPE, "field 'devices' is not an array");
            }
            if (problem != null) {
                return new Rejection(problem.code(), "ranks[" + i + "]: " + problem.message());
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

    /** {@code ranks[0].devices}: where in the record a mapping failed. */
    private static String path(JsonMappingException e) {
        StringBuilder out = new StringBuilder();
        for (JsonMappingException.Reference ref : e.getPath()) {
            if (ref.getFieldName() != null) {
                out.append(out.isEmpty() ? "" : ".").append(ref.getFieldName());
            } else if (ref.getIndex() >= 0) {
                out.append('[').append(ref.getIndex()).append(']');
            }
        }
        return out.toString();
    }

    private static String firstLine(Exception e) {
        String message = String.valueOf(e.getMessage());
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
