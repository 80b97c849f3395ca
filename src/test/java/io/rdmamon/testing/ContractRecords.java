package io.rdmamon.testing;

import com.fasterxml.jackson.databind.util.RawValue;
import io.rdmamon.model.Alert;
import io.rdmamon.model.ContractLimits;
import io.rdmamon.model.HostIfaceSample;
import io.rdmamon.model.JobRecord;
import io.rdmamon.model.Json;
import io.rdmamon.model.PodDeviceMap;
import io.rdmamon.model.PortSample;
import io.rdmamon.model.Rejection;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Records for the contract property tests: a valid record of each input type, near-valid ones (the valid record with
 * a few fields changed to edge values, each change known to keep or break the contract), arbitrary JSON objects with
 * the type's field names, and the contract itself restated as assertions on a parsed record (docs/schemas.md, "Record
 * schemas"), so that an accepted record can be checked without the code under test.
 */
public final class ContractRecords {
    public static final long KAFKA_TS = 1_767_225_600_000L; // 2026-01-01T00:00:00Z
    public static final long NOMINAL = 12_500_000_000L; // 100 Gb/s
    /** Every code a rejection may carry. */
    public static final Set<String> CODES = Set.of(Rejection.EMPTY, Rejection.NOT_JSON, Rejection.NOT_OBJECT,
            Rejection.UNKNOWN_VERSION, Rejection.MISSING_FIELD, Rejection.WRONG_TYPE, Rejection.UNKNOWN_VALUE,
            Rejection.IMPLAUSIBLE_TIME, Rejection.NEGATIVE, Rejection.NOT_FINITE, Rejection.RATE_TOO_HIGH,
            Rejection.MALFORMED_NAME, Rejection.OUT_OF_RANGE);

    private static final long MIN_TIME = 1_000_000_000_000L; // 2001-09-09
    private static final long MAX_TIME = 4_102_444_800_000L; // 2100-01-01
    private static final double CEILING = ContractLimits.DEFAULT_MAX_BYTES_PER_SEC;
    private static final double MULTIPLE = ContractLimits.DEFAULT_RATE_MULTIPLE;
    private static final long LATEST = KAFKA_TS + ContractLimits.DEFAULT_MAX_FUTURE;
    // the README's rule for names, written independently of ContractChecks.isName
    private static final Pattern NAME = Pattern.compile("[^/\\s\\p{Cntrl}\\p{Z}]{1,253}");

    /** A change that drops the field; {@link #NULL} sets it to JSON null (jqwik generates no nulls itself). */
    public static final Object REMOVE = new Object() {
        @Override
        public String toString() {
            return "REMOVE";
        }
    };
    public static final Object NULL = new Object() {
        @Override
        public String toString() {
            return "null";
        }
    };

    /** One field set to {@code value} (or removed); {@code keeps} says whether the contract allows it. */
    public record Change(String field, Object value, boolean keeps) {
    }

    private ContractRecords() {
    }

    // ---- valid records

    public static Map<String, Object> portSample() {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("v", 1);
        s.put("node", "gpu-node-07");
        s.put("device", "mlx5_0");
        s.put("port", 1);
        s.put("ts", KAFKA_TS);
        s.put("intervalMs", 1000);
        s.put("source", "sysfs");
        s.put("state", "ACTIVE");
        s.put("rateBytesPerSec", NOMINAL);
        s.put("txBytesPerSec", 9.5e8);
        s.put("rxBytesPerSec", 9.5e8);
        s.put("txPacketsPerSec", 147_128.0);
        s.put("rxPacketsPerSec", 150_423.0);
        s.put("errors", Map.of("port_rcv_errors", 3));
        s.put("errorClasses", Map.of("physical", 3));
        return s;
    }

    public static Map<String, Object> hostSample() {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("v", 1);
        s.put("node", "gpu-node-07");
        s.put("iface", "eth0");
        s.put("ts", KAFKA_TS);
        s.put("intervalMs", 1000);
        s.put("txBytesPerSec", 1e9);
        s.put("rxBytesPerSec", 2e8);
        s.put("txPacketsPerSec", 1e5);
        s.put("rxPacketsPerSec", 2e4);
        s.put("errors", Map.of("rx_dropped", 2));
        return s;
    }

    public static Map<String, Object> job() {
        Map<String, Object> j = new LinkedHashMap<>();
        j.put("v", 1);
        j.put("uid", "uid-a");
        j.put("job", "llama");
        j.put("namespace", "ml");
        j.put("state", JobRecord.RUNNING);
        j.put("updatedAt", KAFKA_TS);
        j.put("startedAt", KAFKA_TS - 60_000);
        j.put("worldSize", 2);
        j.put("ranks", List.of(rank(0, "n1", "mlx5_0"), rank(1, "n2", "mlx5_0", "mlx5_1")));
        return j;
    }

    public static Map<String, Object> podDevices() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("v", 1);
        m.put("node", "n1");
        m.put("ts", KAFKA_TS);
        m.put("pods", List.of(pod("ml", "llama-0", List.of("mlx5_0")), pod("ml", "llama-1", List.of())));
        return m;
    }

    public static Map<String, Object> alert() {
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("v", 1);
        a.put("id", "7fd96a81b06989334807");
        a.put("type", Alert.LINK_DOWN);
        a.put("status", Alert.RESOLVED);
        a.put("severity", "critical");
        a.put("node", "n1");
        a.put("device", "mlx5_0");
        a.put("port", 1);
        a.put("startsAt", KAFKA_TS);
        a.put("detectedAt", KAFKA_TS + 4_000);
        a.put("endsAt", KAFKA_TS + 60_000);
        a.put("summary", "mlx5_0/1 on n1: link down");
        return a;
    }

    static Map<String, Object> rank(int rank, String node, String... devices) {
        return Map.of("rank", rank, "pod", "llama-" + rank, "node", node, "devices", List.of(devices));
    }

    static Map<String, Object> pod(String namespace, String pod, List<String> devices) {
        return Map.of("namespace", namespace, "pod", pod, "devices", devices, "shared", false,
                "unresolved", List.of("rdma/hca"));
    }

    // ---- near-valid records: changes to edge values, each marked as keeping or breaking the contract

    public static Arbitrary<List<Change>> portSampleChanges() {
        return changes(version(), name("node"), name("device"), port(), time("ts", true), interval(),
                // the nominal rate is only ever broken here: a larger one would make the rates' verdicts depend on it
                pool("rateBytesPerSec", List.of(NOMINAL), List.of(-1L, 2_000_000_000_000L, "fast", List.of(1))),
                rate("txBytesPerSec", true), rate("rxBytesPerSec", true), rate("txPacketsPerSec", true),
                rate("rxPacketsPerSec", true), counts("errors"), counts("errorClasses"),
                pool("state", List.of("DOWN", "", "4: ACTIVE", REMOVE, NULL), List.of()),
                pool("extra", List.of(1, "x", List.of(), Map.of("a", 1)), List.of()));
    }

    public static Arbitrary<List<Change>> hostSampleChanges() {
        return changes(version(), name("node"), name("iface"), time("ts", true), interval(),
                rate("txBytesPerSec", false), rate("rxBytesPerSec", false), rate("txPacketsPerSec", false),
                rate("rxPacketsPerSec", false), counts("errors"));
    }

    public static Arbitrary<List<Change>> jobChanges() {
        return changes(version(),
                pool("uid", List.of("u-2", "5f0c-e1"), List.of("", " ", 7, REMOVE, NULL)),
                pool("job", List.of("other"), List.of("", REMOVE)),
                pool("state", List.of(JobRecord.PENDING, JobRecord.DELETED), List.of("Paused", "running", "", REMOVE)),
                time("updatedAt", true), time("startedAt", false),
                // worldSize is only ever broken here: removing it or making it smaller changes the ranks' verdicts
                pool("worldSize", List.of(2), List.of(0, -3, "two")),
                pool("ranks", List.of(List.of(), List.of(rank(1, "n1")), REMOVE, NULL),
                        List.of(List.of(rank(-1, "n1")), List.of(rank(0, "n/1")), List.of(rank(0, "n1", " ")),
                                List.of(Map.of("rank", 0, "node", "n1", "devices", "mlx5_0")),
                                List.of(Map.of("node", "n1")), List.of(5), "ranks")),
                pool("labels", List.of(Map.of("a", "b"), REMOVE), List.of()));
    }

    public static Arbitrary<List<Change>> podDeviceChanges() {
        return changes(version(), name("node"), time("ts", true),
                pool("pods", List.of(List.of(), List.of(pod("ns", "p", List.of("erdma_0", "erdma_1"))), REMOVE, NULL),
                        List.of(List.of(pod("", "p", List.of())), List.of(pod("ns", "a/b", List.of())),
                                List.of(pod("ns", "p", List.of("x y"))), List.of(Map.of("namespace", "ns")),
                                List.of(Map.of("namespace", "ns", "pod", "p", "unresolved",
                                        Arrays.asList("rdma/hca", null))),
                                "pods")));
    }

    public static Arbitrary<List<Change>> alertChanges() {
        // alerts are read with Jackson alone, which takes "1" and 1.5 for 1
        return changes(pool("v", List.of(1, "1"), List.of(0, 2, 4_294_967_297L, REMOVE, NULL)),
                pool("id", List.of("x"), List.of("", REMOVE)),
                pool("status", List.of(Alert.FIRING), List.of("open", REMOVE)),
                // endsAt stays after startsAt: startsAt only moves back, endsAt only forward or away
                pool("startsAt", List.of(KAFKA_TS - 3_600_000, MIN_TIME), List.of(-5, 0, KAFKA_TS / 1000, REMOVE)),
                pool("detectedAt", List.of(KAFKA_TS, MAX_TIME - 1), List.of(-1, MAX_TIME, REMOVE)),
                pool("endsAt", List.of(KAFKA_TS + 120_000, REMOVE, NULL), List.of(-1, KAFKA_TS * 1000)),
                pool("port", List.of(2, REMOVE, NULL), List.of(0, -1)));
    }

    /** Up to four changes, applied in order (a later change of the same field replaces an earlier one). */
    @SafeVarargs
    private static Arbitrary<List<Change>> changes(Arbitrary<Change>... pools) {
        return Arbitraries.oneOf(List.of(pools)).list().ofMaxSize(4);
    }

    private static Arbitrary<Change> pool(String field, List<Object> keep, List<Object> brk) {
        List<Change> all = new ArrayList<>();
        keep.forEach(v -> all.add(new Change(field, v, true)));
        brk.forEach(v -> all.add(new Change(field, v, false)));
        return Arbitraries.of(all);
    }

    private static Arbitrary<Change> version() {
        return pool("v", List.of(1), List.of(0, 2, "1", 1.5, 4_294_967_297L, REMOVE, NULL));
    }

    private static Arbitrary<Change> name(String field) {
        return pool(field, List.of("n", "gpu-node-07.example", "mlx5_3", "x".repeat(253), "ноде-1"),
                List.of("", " ", "a/b", "has space", "tab\tin", "new\nline", "nbsp\u00a0", "x".repeat(254), 42,
                        List.of("n"), REMOVE, NULL));
    }

    private static Arbitrary<Change> port() {
        return pool("port", List.of(1, 2, 255), List.of(0, -1, 1.5, "1", 4_294_967_297L, REMOVE, NULL));
    }

    /** A time: replays (far behind the Kafka timestamp) pass, the future bound is inclusive. */
    private static Arbitrary<Change> time(String field, boolean required) {
        List<Object> keep = new ArrayList<>(List.of(KAFKA_TS, KAFKA_TS - 400L * 86_400_000, MIN_TIME, LATEST));
        List<Object> brk = new ArrayList<>(List.of(-5, 0, KAFKA_TS / 1000, LATEST + 1, KAFKA_TS * 1000,
                Long.MAX_VALUE, MIN_TIME - 1, "2026-01-01T00:00:00Z"));
        (required ? brk : keep).add(REMOVE);
        (required ? brk : keep).add(NULL);
        // a required time must be a JSON integer; an optional one goes through Jackson, which truncates a float
        (required ? brk : keep).add(1.5e12);
        return pool(field, keep, brk);
    }

    private static Arbitrary<Change> interval() {
        return pool("intervalMs", List.of(0, 1000, 3_600_000, REMOVE), List.of(-1, -1000, "1s"));
    }

    /** A rate; {@code port} when the record has the nominal {@link #NOMINAL}, which bounds it to twice that. */
    private static Arbitrary<Change> rate(String field, boolean port) {
        double over = port ? MULTIPLE * NOMINAL + 1_000 : CEILING * 1.001;
        return pool(field, List.of(0.0, -0.0, 1.5, 1e9, port ? MULTIPLE * NOMINAL : CEILING, REMOVE, NULL),
                List.of(-1e9, -1.0, 1e308, over, 2e12, "NaN", "Infinity", "-Infinity", new RawValue("1e400"),
                        "fast", List.of(1.0)));
    }

    private static Arbitrary<Change> counts(String field) {
        Map<String, Object> nullCount = new HashMap<>();
        nullCount.put("symbol_error", null);
        return pool(field, List.of(Map.of(), Map.of("link_downed", 0, "symbol_error", Long.MAX_VALUE), REMOVE, NULL),
                List.of(Map.of("link_downed", -1), nullCount, Map.of("", 1), Map.of("x", "many"), "errors",
                        List.of(1)));
    }

    /** The record with the changes applied. */
    public static Map<String, Object> apply(Map<String, Object> base, List<Change> changes) {
        Map<String, Object> out = new LinkedHashMap<>(base);
        for (Change c : changes) {
            if (c.value() == REMOVE) {
                out.remove(c.field());
            } else {
                out.put(c.field(), c.value() == NULL ? null : c.value());
            }
        }
        return out;
    }

    /** The fields whose last change breaks the contract: the record must be refused when there are any. */
    public static List<String> broken(List<Change> changes) {
        Map<String, Change> last = new LinkedHashMap<>();
        changes.forEach(c -> last.put(c.field(), c));
        return last.values().stream().filter(c -> !c.keeps()).map(Change::field).toList();
    }

    public static byte[] bytes(Map<String, Object> record) {
        return Json.toBytes(record);
    }

    // ---- arbitrary records: the type's field names, each kept, dropped or set to any JSON value

    public static Arbitrary<Map<String, Object>> anyLike(Map<String, Object> base) {
        List<Arbitrary<Tuple.Tuple2<String, Object>>> fields = new ArrayList<>();
        base.forEach((field, value) -> fields.add(Arbitraries.frequencyOf(
                // mostly the valid value, so that a fair share of records is accepted and checked
                Tuple.of(17, Arbitraries.just(value)), Tuple.of(1, Arbitraries.just(REMOVE)),
                Tuple.of(2, anyJson(2))).map(v -> Tuple.of(field, v))));
        return Combinators.combine(fields).as(pairs -> {
            Map<String, Object> out = new LinkedHashMap<>();
            for (Tuple.Tuple2<String, Object> p : pairs) {
                if (p.get2() != REMOVE) {
                    out.put(p.get1(), p.get2() == NULL ? null : p.get2());
                }
            }
            return out;
        });
    }

    private static Arbitrary<Object> anyJson(int depth) {
        List<Arbitrary<?>> kinds = new ArrayList<>(List.of(
                Arbitraries.integers(),
                Arbitraries.longs(),
                Arbitraries.longs().between(MIN_TIME - 10, MAX_TIME + 10),
                Arbitraries.doubles().withSpecialValue(Double.NaN).withSpecialValue(Double.POSITIVE_INFINITY)
                        .withSpecialValue(Double.NEGATIVE_INFINITY).withSpecialValue(-0.0)
                        .withSpecialValue(Double.MAX_VALUE),
                Arbitraries.strings().ofMaxLength(6),
                Arbitraries.strings().withCharRange('a', 'z').withChars('/', ' ', '_', '\u0000').ofMaxLength(6),
                Arbitraries.of("NaN", "Infinity", "1e400", "Running", "ACTIVE"),
                Arbitraries.of(true, false),
                Arbitraries.just(NULL),
                Arbitraries.just(new RawValue("1e400")),
                Arbitraries.just(new RawValue("-1e400"))));
        if (depth > 0) {
            kinds.add(anyJson(depth - 1).map(v -> v == NULL ? "" : v).list().ofMaxSize(3));
            kinds.add(Arbitraries.maps(Arbitraries.of("rank", "node", "pod", "devices", "namespace", "unresolved",
                    "x"), anyJson(depth - 1).map(v -> v == NULL ? "" : v)).ofMaxSize(4));
        }
        return Arbitraries.oneOf(kinds.stream().map(a -> a.map(v -> (Object) v)).toList());
    }

    // ---- the contract, restated for a record that was accepted

    public static void keepsContract(PortSample s) {
        assertThat(s.v()).isEqualTo(1);
        assertName(s.node());
        assertName(s.device());
        assertThat(s.port()).isGreaterThanOrEqualTo(1);
        assertTime(s.ts(), LATEST);
        assertThat(s.intervalMs()).isNotNegative();
        Long nominal = s.rateBytesPerSec();
        if (nominal != null) {
            assertThat((double) nominal).isBetween(0.0, CEILING);
        }
        double bound = nominal == null || nominal == 0 ? CEILING : Math.min(CEILING, MULTIPLE * nominal);
        for (Double rate : new Double[]{s.txBytesPerSec(), s.rxBytesPerSec(), s.txPacketsPerSec(),
                s.rxPacketsPerSec()}) {
            assertRate(rate, bound);
        }
        assertCounts(s.errors());
        assertCounts(s.errorClasses());
    }

    public static void keepsContract(HostIfaceSample s) {
        assertThat(s.v()).isEqualTo(1);
        assertName(s.node());
        assertName(s.iface());
        assertTime(s.ts(), LATEST);
        assertThat(s.intervalMs()).isNotNegative();
        for (Double rate : new Double[]{s.txBytesPerSec(), s.rxBytesPerSec(), s.txPacketsPerSec(),
                s.rxPacketsPerSec()}) {
            assertRate(rate, CEILING);
        }
        assertCounts(s.errors());
    }

    public static void keepsContract(JobRecord j) {
        assertThat(j.v()).isEqualTo(1);
        assertThat(j.uid()).isNotBlank();
        assertThat(j.job()).isNotBlank();
        assertThat(j.state()).isIn(JobRecord.PENDING, JobRecord.RUNNING, JobRecord.SUCCEEDED, JobRecord.FAILED,
                JobRecord.DELETED);
        assertTime(j.updatedAt(), LATEST);
        if (j.startedAt() != null) {
            assertTime(j.startedAt(), LATEST);
        }
        if (j.worldSize() != null) {
            assertThat(j.worldSize()).isPositive();
        }
        for (JobRecord.Rank r : j.ranks()) {
            assertThat(r.rank()).isNotNegative();
            if (j.worldSize() != null) {
                assertThat(r.rank()).isLessThan(j.worldSize());
            }
            assertName(r.node());
            if (r.pod() != null) {
                assertName(r.pod());
            }
            r.devices().forEach(ContractRecords::assertName);
        }
    }

    public static void keepsContract(PodDeviceMap m) {
        assertThat(m.v()).isEqualTo(1);
        assertName(m.node());
        assertTime(m.ts(), LATEST);
        for (PodDeviceMap.PodDevices p : m.pods()) {
            assertThat(p).isNotNull();
            assertName(p.namespace());
            assertName(p.pod());
            p.devices().forEach(ContractRecords::assertName);
            assertThat(p.unresolved()).doesNotContainNull();
        }
    }

    public static void keepsContract(Alert a) {
        assertThat(a.v()).isEqualTo(1);
        assertThat(a.id()).isNotBlank();
        assertThat(a.type()).isNotBlank();
        assertThat(a.status()).isIn(Alert.FIRING, Alert.RESOLVED);
        assertTime(a.startsAt(), MAX_TIME - 1);
        assertTime(a.detectedAt(), MAX_TIME - 1);
        if (a.endsAt() != null) {
            assertTime(a.endsAt(), MAX_TIME - 1);
            assertThat(a.endsAt()).isGreaterThanOrEqualTo(a.startsAt());
        }
        if (a.port() != null) {
            assertThat(a.port()).isGreaterThanOrEqualTo(1);
        }
    }

    private static void assertName(String name) {
        assertThat(name).matches(NAME);
    }

    private static void assertTime(long t, long latest) {
        assertThat(t).isBetween(MIN_TIME, Math.min(latest, MAX_TIME - 1));
    }

    private static void assertRate(Double rate, double bound) {
        if (rate != null) {
            // + 0.0 turns -0.0 (a zero, which a producer may well compute) into 0.0 for AssertJ's compareTo
            assertThat(rate + 0.0).isFinite().isBetween(0.0, bound);
        }
    }

    private static void assertCounts(Map<String, Long> counts) {
        counts.forEach((name, n) -> {
            assertThat(name).isNotEmpty();
            assertThat(n).isNotNull().isNotNegative();
        });
    }
}
