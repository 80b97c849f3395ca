package io.rdmamon.collector.gpu;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.support.LogLimiter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * One kind of driver work (a reading, a process count) that may not return: a GPU fallen off the bus or a GSP timeout
 * can block NVML, and nvidia-smi with it, in the kernel, where no thread interrupt or signal ends it. The work's owner
 * marks its start and end; the sampling thread's {@link #check} reports a call outstanding longer than the timeout,
 * once per episode: {@value #METRIC}{@code {part}} counts it and one log line (rate-limited) says so. The owner starts
 * no other call meanwhile: what hangs is at most the one call.
 */
final class StuckCall {
    static final String METRIC = "rdmamon.gpu.stuck.calls";

    private static final Logger log = LoggerFactory.getLogger(GpuSource.class);
    private static final long IDLE = Long.MIN_VALUE;

    private final String part;
    private final long timeoutNanos;
    private final Counter episodes;
    private final LogLimiter logLimiter;
    private volatile long startedNanos = IDLE;
    private volatile boolean stuck;

    StuckCall(String part, Duration timeout, MeterRegistry registry, LogLimiter logLimiter) {
        this.part = part;
        this.timeoutNanos = timeout.toNanos();
        this.logLimiter = logLimiter;
        this.episodes = Counter.builder(METRIC).tag("part", part)
                .description("GPU driver work that did not return within collector.gpu.silence.timeout.ms: reader "
                        + "(an NVML reading or the nvidia-smi stream), count (a process count)").register(registry);
    }

    void began(long nanos) {
        startedNanos = nanos;
    }

    /** The call returned; true when it had been reported stuck (its result is stale: discard it). */
    boolean ended() {
        startedNanos = IDLE;
        if (!stuck) {
            return false;
        }
        stuck = false;
        log.info("GPU {}: the stuck driver call returned; resuming after backoff", part);
        return true;
    }

    /** True while the call is outstanding longer than the timeout; reports it the first time. */
    boolean check(long nowNanos, String what) {
        long started = startedNanos;
        if (started == IDLE || nowNanos - started <= timeoutNanos) {
            return false;
        }
        if (!stuck) {
            stuck = true;
            episodes.increment();
            long suppressed = logLimiter.admit("stuck/" + part);
            if (suppressed != LogLimiter.SUPPRESS) {
                log.warn("GPU {} stuck: {} has not returned for {} ms (a GPU lost or a driver hung?); this node's GPU "
                                + "samples stop until it returns, no other call is started meanwhile{}", part, what,
                        TimeUnit.NANOSECONDS.toMillis(nowNanos - started), LogLimiter.suffix(suppressed));
            }
        }
        return true;
    }

    boolean stuck() {
        return stuck;
    }
}
