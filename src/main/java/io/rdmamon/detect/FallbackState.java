package io.rdmamon.detect;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility;
import io.rdmamon.jobs.Holder;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One job as {@link TcpFallbackDetector} follows it: its open windows' sums, each host interface's background, and
 * the run of consecutive windows that looked like training over TCP. Mutable, like {@link StallState}: read, changed
 * and written back once per event.
 */
@JsonAutoDetect(fieldVisibility = Visibility.ANY, getterVisibility = Visibility.NONE,
        isGetterVisibility = Visibility.NONE)
final class FallbackState {
    String uid;
    String job;
    String namespace;
    /** The job's ranks and pods ({@link StallState#generation}); a change is a restart: everything starts over. */
    String generation;
    /** When the job's record said it ended; null while it runs. */
    Long endedAt;
    /** Newest event time seen for the job. */
    long now;
    /** Window start → sums; a window is judged once the job's newest sample is past its end plus a grace. */
    TreeMap<Long, Window> open = new TreeMap<>();
    /** End of the last judged window: later samples for it are left out. */
    long judgedUntil = Long.MIN_VALUE;
    /**
     * node/iface → its background: the lowest rate (tx+rx) one of its samples showed so far in windows that can teach
     * it ({@link TcpFallbackDetector}).
     */
    Map<String, Double> hostBackground = new TreeMap<>();
    /** Consecutive windows that looked like training over TCP, and when the first of them began. */
    int fallbackWindows;
    Long fallbackSince;
    boolean firing;
    /**
     * The job's record says its collectives are meant to go over sockets ({@code rdmamon.io/transport=socket}, ACS
     * P16EN): its socket traffic is no fallback.
     */
    boolean socketIntended;

    static FallbackState of(String uid, String job, String namespace) {
        FallbackState s = new FallbackState();
        s.uid = uid;
        s.job = job;
        s.namespace = namespace;
        return s;
    }

    static FallbackState of(Holder holder) {
        return of(holder.uid(), holder.job(), holder.namespace());
    }

    Subject subject() {
        return new Subject(uid, job, namespace, null, null, null);
    }

    /** One window's traffic: the job's exclusive RDMA ports together, and each host interface of its nodes. */
    @JsonAutoDetect(fieldVisibility = Visibility.ANY, getterVisibility = Visibility.NONE,
            isGetterVisibility = Visibility.NONE)
    static final class Window {
        double rdmaBytes;
        /** RDMA ports with at least one measured sample in the window. */
        Set<String> ports = new TreeSet<>();
        Map<String, Host> hosts = new TreeMap<>();
    }

    /** One host interface's bytes, covered time and samples (all, and busy ones) in a window. */
    @JsonAutoDetect(fieldVisibility = Visibility.ANY, getterVisibility = Visibility.NONE,
            isGetterVisibility = Visibility.NONE)
    static final class Host {
        String node;
        double txBytes;
        double rxBytes;
        long ms;
        int samples;
        int busySamples;
        /** The lowest tx+rx rate of a sample in the window. */
        double minPerSec = Double.MAX_VALUE;

        double txPerSec() {
            return ms == 0 ? 0 : txBytes * 1000.0 / ms;
        }

        double rxPerSec() {
            return ms == 0 ? 0 : rxBytes * 1000.0 / ms;
        }

        double perSec() {
            return txPerSec() + rxPerSec();
        }
    }
}
