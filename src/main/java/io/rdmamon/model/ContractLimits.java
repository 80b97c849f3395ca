package io.rdmamon.model;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;

import java.time.Duration;

/**
 * The bounds of the record contracts an operator may need to move (the fixed ones are in {@link ContractChecks}).
 * Every role that reads input records defines the same three keys under its own prefix ({@code streams.},
 * {@code sink.}) with {@link #define} and reads them with {@link #from}.
 *
 * @param maxFutureMs    how far a record's own time ({@code ts}, {@code updatedAt}, ...) may be ahead of its Kafka
 *                       timestamp; a time far behind it is fine (a replay or a backlog of old data)
 * @param rateMultiple   a port's rates may be at most this many times its nominal {@code rateBytesPerSec}, when known
 * @param maxBytesPerSec any rate (bytes/s or packets/s, any port or interface) may be at most this
 */
public record ContractLimits(long maxFutureMs, double rateMultiple, double maxBytesPerSec) {

    public static final String MAX_FUTURE_CONFIG = "contract.max.future.ms";
    public static final long DEFAULT_MAX_FUTURE = Duration.ofMinutes(5).toMillis();
    private static final String MAX_FUTURE_DOC = "Input records whose own time (ts, updatedAt, startedAt) is more "
            + "than this ahead of their Kafka record timestamp go to the dead-letter topic: a clock that far off, or a "
            + "time in the wrong unit (microseconds), would put points in the future. Times behind the Kafka timestamp "
            + "are accepted (back to 2001), so replays of old data work. Producers stamp records when they send them, "
            + "so this only needs to cover clock skew between nodes.";

    public static final String RATE_MULTIPLE_CONFIG = "contract.rate.max.multiple";
    public static final double DEFAULT_RATE_MULTIPLE = 4.0;
    private static final String RATE_MULTIPLE_DOC = "A port sample whose byte or packet rate exceeds this multiple of "
            + "the port's nominal rateBytesPerSec (when known and above 0) goes to the dead-letter topic. 4 refuses a "
            + "producer that reports bits as bytes (8x) but keeps the sample that straddles a link-width fallback "
            + "(4X to 1X: counted partly at the old speed, stamped with the new one, so under 4x), and sampling "
            + "jitter. A faster fallback (e.g. EDR to SDR, 10x) can lose that one sample: raise it if that matters.";

    public static final String MAX_BYTES_PER_SEC_CONFIG = "contract.rate.max.bytes.per.sec";
    public static final double DEFAULT_MAX_BYTES_PER_SEC = 1e12;
    private static final String MAX_BYTES_PER_SEC_DOC = "Ceiling of every rate on the input topics (bytes/s and "
            + "packets/s, RDMA ports and host interfaces), whether or not a nominal rate is known: 1e12 bytes/s is "
            + "8 Tb/s, ten times an 800 Gb/s port.";

    public static final ContractLimits DEFAULT = new ContractLimits(DEFAULT_MAX_FUTURE, DEFAULT_RATE_MULTIPLE,
            DEFAULT_MAX_BYTES_PER_SEC);

    /** Adds the three keys, each under {@code prefix} (e.g. {@code "streams."}), to a role's definition. */
    public static ConfigDef define(ConfigDef def, String prefix) {
        return def
                .define(prefix + MAX_FUTURE_CONFIG, Type.LONG, DEFAULT_MAX_FUTURE,
                        Range.between(0, Duration.ofDays(365).toMillis()), Importance.LOW, MAX_FUTURE_DOC)
                .define(prefix + RATE_MULTIPLE_CONFIG, Type.DOUBLE, DEFAULT_RATE_MULTIPLE, Range.between(1, 1_000),
                        Importance.LOW, RATE_MULTIPLE_DOC)
                .define(prefix + MAX_BYTES_PER_SEC_CONFIG, Type.DOUBLE, DEFAULT_MAX_BYTES_PER_SEC,
                        Range.between(1e6, 1e18), Importance.LOW, MAX_BYTES_PER_SEC_DOC);
    }

    /** The limits a role's configuration sets, keys under {@code prefix} as given to {@link #define}. */
    public static ContractLimits from(AbstractConfig config, String prefix) {
        return new ContractLimits(config.getLong(prefix + MAX_FUTURE_CONFIG),
                config.getDouble(prefix + RATE_MULTIPLE_CONFIG), config.getDouble(prefix + MAX_BYTES_PER_SEC_CONFIG));
    }
}
