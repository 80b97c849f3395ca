package io.rdmamon.model;

import java.util.List;
import java.util.Map;

/**
 * The value ranges of the record contracts (docs/schemas.md), checked on a record that already has the right
 * shape (every required field present and of its type: see {@link RecordParser}). Each check returns null when the
 * record is fine, else a {@link Rejection} naming the first bad field and its value.
 *
 * <p>These run once per input record in the stream app, so the accepted path is plain comparisons: no regex, no
 * string building, no allocation; messages are built only for a record being refused.
 */
public final class ContractChecks {
    /** 2001-09-09T01:46:40Z: anything earlier is a time in seconds (or garbage), not epoch milliseconds. */
    public static final long MIN_TIME = 1_000_000_000_000L;
    /** 2100-01-01T00:00:00Z: anything later is a time in micro- or nanoseconds (or garbage). */
    public static final long MAX_TIME = 4_102_444_800_000L;
    /** Longest node, device, interface or pod name: a DNS name's limit, which Kubernetes names keep to. */
    public static final int MAX_NAME_LENGTH = 253;
    /** No Kafka timestamp to compare with (a record read from a file): only the fixed time range applies. */
    public static final long NO_TIMESTAMP = -1;
    private static final int SHOWN_CHARS = 64;

    private ContractChecks() {
    }

    public static Rejection portSample(PortSample s, long recordTimestamp, ContractLimits limits) {
        Rejection r = name("node", s.node());
        if (r == null) {
            r = name("device", s.device());
        }
        if (r == null && s.port() < 1) {
            r = new Rejection(Rejection.OUT_OF_RANGE, "field 'port' is " + s.port() + ": ports are numbered from 1");
        }
        if (r == null) {
            r = time("ts", s.ts(), recordTimestamp, limits);
        }
        if (r == null) {
            r = notNegative("intervalMs", s.intervalMs());
        }
        Long nominal = s.rateBytesPerSec();
        if (r == null && nominal != null) {
            r = notNegative("rateBytesPerSec", nominal);
            if (r == null && nominal > limits.maxBytesPerSec()) {
                r = new Rejection(Rejection.RATE_TOO_HIGH, "field 'rateBytesPerSec' is " + nominal + ": above "
                        + limits.maxBytesPerSec() + " (" + ContractLimits.MAX_BYTES_PER_SEC_CONFIG + ")");
            }
        }
        // a nominal rate of 0 (a port that reports no speed while down) says nothing about what it may carry
        long known = nominal == null ? 0 : nominal;
        if (r == null) {
            r = rate("txBytesPerSec", s.txBytesPerSec(), known, limits);
        }
        if (r == null) {
            r = rate("rxBytesPerSec", s.rxBytesPerSec(), known, limits);
        }
        // a packet carries at least one byte, so the byte bounds hold for packets too
        if (r == null) {
            r = rate("txPacketsPerSec", s.txPacketsPerSec(), known, limits);
        }
        if (r == null) {
            r = rate("rxPacketsPerSec", s.rxPacketsPerSec(), known, limits);
        }
        if (r == null) {
            r = counts("errors", s.errors());
        }
        if (r == null) {
            r = counts("errorClasses", s.errorClasses());
        }
        return r;
    }

    public static Rejection hostSample(HostIfaceSample s, long recordTimestamp, ContractLimits limits) {
        Rejection r = name("node", s.node());
        if (r == null) {
            r = name("iface", s.iface());
        }
        if (r == null) {
            r = time("ts", s.ts(), recordTimestamp, limits);
        }
        if (r == null) {
            r = notNegative("intervalMs", s.intervalMs());
        }
        if (r == null) {
            r = rate("txBytesPerSec", s.txBytesPerSec(), 0, limits);
        }
        if (r == null) {
            r = rate("rxBytesPerSec", s.rxBytesPerSec(), 0, limits);
        }
        if (r == null) {
            r = rate("txPacketsPerSec", s.txPacketsPerSec(), 0, limits);
        }
        if (r == null) {
            r = rate("rxPacketsPerSec", s.rxPacketsPerSec(), 0, limits);
        }
        if (r == null) {
            r = counts("errors", s.errors());
        }
        return r;
    }

    /** A GPU's reading: any value may be null (the driver did not report it), none may be out of its range. */
    public static Rejection gpuSample(GpuSample s, long recordTimestamp, ContractLimits limits) {
        Rejection r = name("node", s.node());
        if (r == null && s.gpu() < 0) {
            r = new Rejection(Rejection.OUT_OF_RANGE, "field 'gpu' is " + s.gpu() + ": GPUs are numbered from 0");
        }
        if (r == null && s.uuid() == null) {
            // a sample without a uuid would belong to every job on its node
            r = new Rejection(Rejection.MISSING_FIELD, "missing field 'uuid'");
        }
        if (r == null) {
            r = name("uuid", s.uuid());
        }
        if (r == null) {
            r = time("ts", s.ts(), recordTimestamp, limits);
        }
        if (r == null) {
            // measured: 0 on a GPU's first sample, as intervalMs of the port samples
            r = notNegative("intervalMs", s.intervalMs());
        }
        if (r == null) {
            r = percent("utilizationPercent", s.utilizationPercent());
        }
        if (r == null) {
            r = percent("memoryUtilizationPercent", s.memoryUtilizationPercent());
        }
        if (r == null) {
            r = notNegative("powerWatts", s.powerWatts());
        }
        if (r == null) {
            r = notNegative("smClockMHz", s.smClockMHz());
        }
        if (r == null && s.processes() != null) {
            r = notNegative("processes", s.processes());
        }
        List<String> mig = s.migDevices();
        if (r == null && mig != null) {
            int bad = firstNull(mig) >= 0 ? firstNull(mig) : firstNonName(mig);
            if (bad >= 0) {
                r = malformed("migDevices[" + bad + "]", mig.get(bad));
            }
        }
        if (r == null && s.error() != null && s.error().isBlank()) {
            r = new Rejection(Rejection.OUT_OF_RANGE, "field 'error' is blank: it says why the readings failed");
        }
        return r;
    }

    public static Rejection job(JobRecord job, long recordTimestamp, ContractLimits limits) {
        Rejection r = time("updatedAt", job.updatedAt(), recordTimestamp, limits);
        if (r == null && job.startedAt() != null) {
            r = time("startedAt", job.startedAt(), recordTimestamp, limits);
        }
        Integer worldSize = job.worldSize();
        if (r == null && worldSize != null && worldSize < 1) {
            r = new Rejection(Rejection.OUT_OF_RANGE, "field 'worldSize' is " + worldSize + ": a job has at least "
                    + "one rank");
        }
        List<JobRecord.Rank> ranks = job.ranks();
        for (int i = 0; r == null && i < ranks.size(); i++) {
            JobRecord.Rank rank = ranks.get(i);
            if (rank.rank() < 0 || worldSize != null && rank.rank() >= worldSize) {
                r = new Rejection(Rejection.OUT_OF_RANGE, "field 'ranks[" + i + "].rank' is " + rank.rank()
                        + ": ranks run from 0" + (worldSize == null ? "" : " to worldSize - 1 = " + (worldSize - 1)));
            } else if (!isName(rank.node())) {
                r = malformed("ranks[" + i + "].node", rank.node());
            } else if (rank.pod() != null && !isName(rank.pod())) {
                r = malformed("ranks[" + i + "].pod", rank.pod());
            } else if (rank.instanceType() != null && !isName(rank.instanceType())) {
                r = malformed("ranks[" + i + "].instanceType", rank.instanceType());
            } else if (rank.virtualNode() != null && !isName(rank.virtualNode())) {
                r = malformed("ranks[" + i + "].virtualNode", rank.virtualNode());
            } else {
                int bad = firstNonName(rank.devices());
                if (bad >= 0) {
                    r = malformed("ranks[" + i + "].devices[" + bad + "]", rank.devices().get(bad));
                }
            }
        }
        return r;
    }

    public static Rejection node(NodeRecord record, long recordTimestamp, ContractLimits limits) {
        Rejection r = name("node", record.node());
        return r != null ? r : time("at", record.at(), recordTimestamp, limits);
    }

    public static Rejection podDevices(PodDeviceMap map, long recordTimestamp, ContractLimits limits) {
        Rejection r = name("node", map.node());
        if (r == null) {
            r = time("ts", map.ts(), recordTimestamp, limits);
        }
        List<PodDeviceMap.PodDevices> pods = map.pods();
        for (int i = 0; r == null && i < pods.size(); i++) {
            PodDeviceMap.PodDevices pod = pods.get(i);
            if (pod == null) {
                r = new Rejection(Rejection.WRONG_TYPE, "field 'pods[" + i + "]' is null, not an object");
            } else if (!isName(pod.namespace())) {
                r = malformed("pods[" + i + "].namespace", pod.namespace());
            } else if (!isName(pod.pod())) {
                r = malformed("pods[" + i + "].pod", pod.pod());
            } else if (firstNull(pod.unresolved()) >= 0) {
                r = new Rejection(Rejection.WRONG_TYPE, "field 'pods[" + i + "].unresolved[" + firstNull(
                        pod.unresolved()) + "]' is null, not a string");
            } else {
                int bad = firstNonName(pod.devices());
                if (bad >= 0) {
                    r = malformed("pods[" + i + "].devices[" + bad + "]", pod.devices().get(bad));
                }
            }
        }
        return r;
    }

    /**
     * An alert's times and port. Its times are event times of the samples behind it, which may be far behind the
     * record's Kafka timestamp (a replay) but never ahead of it, so only the fixed time range applies.
     */
    public static Rejection alert(Alert alert) {
        Rejection r = time("startsAt", alert.startsAt(), NO_TIMESTAMP, ContractLimits.DEFAULT);
        if (r == null) {
            r = time("detectedAt", alert.detectedAt(), NO_TIMESTAMP, ContractLimits.DEFAULT);
        }
        if (r == null && alert.endsAt() != null) {
            r = time("endsAt", alert.endsAt(), NO_TIMESTAMP, ContractLimits.DEFAULT);
            if (r == null && alert.endsAt() < alert.startsAt()) {
                r = new Rejection(Rejection.IMPLAUSIBLE_TIME, "field 'endsAt' is " + alert.endsAt()
                        + ": before startsAt " + alert.startsAt());
            }
        }
        if (r == null && alert.port() != null && alert.port() < 1) {
            r = new Rejection(Rejection.OUT_OF_RANGE, "field 'port' is " + alert.port()
                    + ": ports are numbered from 1");
        }
        return r;
    }

    /**
     * A node, device, interface, namespace or pod name: 1 to {@value #MAX_NAME_LENGTH} characters, none of them '/'
     * (keys are {@code node/device/port}), whitespace or control characters. Not stricter (e.g. Kubernetes' DNS
     * rules): clusters without Kubernetes name their nodes as they like.
     */
    public static boolean isName(String s) {
        if (s == null || s.isEmpty() || s.length() > MAX_NAME_LENGTH) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c > ' ' && c < 0x7F && c != '/') {
                continue; // printable ASCII, as names nearly always are: no Unicode tables per character
            }
            if (c == '/' || Character.isWhitespace(c) || Character.isISOControl(c) || Character.isSpaceChar(c)) {
                return false;
            }
        }
        return true;
    }

    private static Rejection name(String field, String value) {
        return isName(value) ? null : malformed(field, value);
    }

    /** The index of the first element that is not a name, -1 if all are. */
    private static int firstNonName(List<String> values) {
        for (int i = 0; i < values.size(); i++) {
            if (!isName(values.get(i))) {
                return i;
            }
        }
        return -1;
    }

    /** Not {@code List.contains(null)}: immutable lists throw on it. */
    private static int firstNull(List<String> values) {
        for (int i = 0; i < values.size(); i++) {
            if (values.get(i) == null) {
                return i;
            }
        }
        return -1;
    }

    private static Rejection malformed(String field, String value) {
        return new Rejection(Rejection.MALFORMED_NAME, "field '" + field + "' is " + shown(value) + ": not a name "
                + "(1 to " + MAX_NAME_LENGTH + " characters, no '/', whitespace or control characters)");
    }

    private static Rejection time(String field, long t, long recordTimestamp, ContractLimits limits) {
        if (t < MIN_TIME || t >= MAX_TIME) {
            return new Rejection(Rejection.IMPLAUSIBLE_TIME, "field '" + field + "' is " + t + ": not an epoch-ms time "
                    + "from 2001-09-09 (" + MIN_TIME + ") to 2100-01-01 (" + MAX_TIME + ")");
        }
        // both positive here, so the difference cannot overflow
        if (recordTimestamp > 0 && t - recordTimestamp > limits.maxFutureMs()) {
            return new Rejection(Rejection.IMPLAUSIBLE_TIME, "field '" + field + "' is " + t + ": "
                    + (t - recordTimestamp) + " ms after the record's Kafka timestamp " + recordTimestamp
                    + ", more than " + limits.maxFutureMs() + " (" + ContractLimits.MAX_FUTURE_CONFIG + ")");
        }
        return null;
    }

    private static Rejection notNegative(String field, long value) {
        return value >= 0 ? null : new Rejection(Rejection.NEGATIVE, "field '" + field + "' is negative: " + value);
    }

    /** A share of time: 0 to 100, or null (not reported). */
    private static Rejection percent(String field, Double value) {
        Rejection r = notNegative(field, value);
        if (r == null && value != null && value > 100) {
            r = new Rejection(Rejection.OUT_OF_RANGE, "field '" + field + "' is " + value + ": above 100 %");
        }
        return r;
    }

    /** A finite value not below 0, or null (not reported). */
    private static Rejection notNegative(String field, Double value) {
        if (value == null) {
            return null;
        }
        if (!Double.isFinite(value)) {
            return new Rejection(Rejection.NOT_FINITE, "field '" + field + "' is not a finite number: " + value);
        }
        return value >= 0 ? null : new Rejection(Rejection.NEGATIVE, "field '" + field + "' is negative: " + value);
    }

    /** {@code nominal} is the port's rate in bytes/s, 0 when unknown. */
    private static Rejection rate(String field, Double value, long nominal, ContractLimits limits) {
        if (value == null) {
            return null;
        }
        double v = value;
        if (!Double.isFinite(v)) {
            return new Rejection(Rejection.NOT_FINITE, "field '" + field + "' is not a finite number: " + v);
        }
        if (v < 0) {
            return new Rejection(Rejection.NEGATIVE, "field '" + field + "' is negative: " + v);
        }
        if (v > limits.maxBytesPerSec()) {
            return new Rejection(Rejection.RATE_TOO_HIGH, "field '" + field + "' is " + v + ": above "
                    + limits.maxBytesPerSec() + " (" + ContractLimits.MAX_BYTES_PER_SEC_CONFIG + ")");
        }
        if (nominal > 0 && v > limits.rateMultiple() * nominal) {
            return new Rejection(Rejection.RATE_TOO_HIGH, "field '" + field + "' is " + v + ": above "
                    + limits.rateMultiple() + " x the port's nominal rateBytesPerSec " + nominal + " ("
                    + ContractLimits.RATE_MULTIPLE_CONFIG + ")");
        }
        return null;
    }

    /** Counter increments: names non-empty, values present and not negative. */
    private static Rejection counts(String field, Map<String, Long> counts) {
        if (counts.isEmpty()) {
            return null; // the usual case: no iterator
        }
        for (Map.Entry<String, Long> e : counts.entrySet()) {
            Long n = e.getValue();
            if (e.getKey().isEmpty()) {
                return new Rejection(Rejection.MALFORMED_NAME, "field '" + field + "' has a counter without a name");
            }
            if (n == null) {
                return new Rejection(Rejection.WRONG_TYPE, "field '" + field + "." + e.getKey() + "' is null, not "
                        + "a count");
            }
            if (n < 0) {
                return new Rejection(Rejection.NEGATIVE, "field '" + field + "." + e.getKey() + "' is negative: " + n);
            }
        }
        return null;
    }

    private static String shown(String value) {
        if (value == null) {
            return "null";
        }
        String text = value.length() > SHOWN_CHARS ? value.substring(0, SHOWN_CHARS) + "..." : value;
        return "'" + text + "'";
    }
}
