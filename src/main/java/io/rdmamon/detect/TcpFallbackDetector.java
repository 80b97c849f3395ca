package io.rdmamon.detect;

import io.rdmamon.jobs.JobEvent;
import io.rdmamon.jobs.JobSample;
import io.rdmamon.jobs.PortTraffic;
import io.rdmamon.jobs.SocketPorts;
import io.rdmamon.model.Alert;
import io.rdmamon.model.HostIfaceSample;
import io.rdmamon.model.JobRecord;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * TCP_FALLBACK: a Running job whose allocated RDMA ports stay near idle while the host interfaces of its nodes carry
 * sustained, symmetric traffic well above their own background: NCCL did not find a usable RDMA device and runs its
 * collectives over sockets (NCCL_SOCKET_IFNAME=eth0). The job trains, several times slower, and nothing else says
 * why: without this alert it gets one LINK_IDLE per port after 10 minutes.
 *
 * <p>Judged per event-time window ({@code streams.tcp.fallback.window.ms}) of the job's events: a window looks like
 * training over TCP when the RDMA share of the job's bytes is at most {@code rdma.share.max} and at least
 * {@code nodes.fraction} of its nodes have a host interface that is busy ({@code host.min.bytes.per.sec}),
 * {@code host.rise.factor} above its background, symmetric ({@code symmetry.min}) and sustained
 * ({@code busy.fraction} of its samples). {@code windows} such windows fire, in a row but for windows with too
 * little traffic to say (a pause, part of one): only a window in which RDMA carries the job's traffic or a busy host
 * interface is one-sided starts the count again. The first later window in which RDMA carries the traffic again
 * resolves it. That keeps it silent for:
 * <ul>
 *   <li>an RDMA job that also loads data (mostly rx) or writes checkpoints (mostly tx) over eth0: the RDMA share is
 *       high, and the host traffic one-sided;</li>
 *   <li>NCCL initialisation and start-up: too short, and small;</li>
 *   <li>a hang: no traffic anywhere, so no host interface is busy;</li>
 *   <li>a job without RDMA devices, or whose devices are all shared with another job: no measured port of its own,
 *       so no window is judged (a fallback is only visible against ports the job holds alone);</li>
 *   <li>one rank on TCP while the others use RDMA: the job's RDMA share stays high (that rank is a STRAGGLER);</li>
 *   <li>a job meant to run over sockets (its record's {@code rdmamon.io/transport=socket}: ACS P16EN): nothing
 *       fell back.</li>
 * </ul>
 * The job's LINK_IDLE alerts carry the same {@code uid} label: Alertmanager's inhibition folds them into this one
 * while it fires (docs/alerts.md).
 */
public final class TcpFallbackDetector implements Detector<JobEvent, FallbackState> {
    /**
     * A window is judged this long after the job's newest sample passed its end: the nodes' clocks differ by up to a
     * second and a node's samples arrive up to 1.5 s late. Samples later than that are left out of it.
     */
    static final long CLOSE_GRACE_MS = 5_000;
    private static final long FORGET_ENDED_MS = 3_600_000;
    private static final long FORGET_SILENT_MS = 86_400_000;

    private final DetectorConfig cfg;
    private final long windowMs;

    public TcpFallbackDetector(DetectorConfig cfg) {
        this.cfg = cfg;
        this.windowMs = cfg.fallbackWindowMs();
    }

    @Override
    public String type() {
        return Alert.TCP_FALLBACK;
    }

    @Override
    public Class<FallbackState> stateType() {
        return FallbackState.class;
    }

    @Override
    public Result<FallbackState> inspect(FallbackState state, JobEvent event, long ts) {
        if (event.lifecycle() != null) {
            return lifecycle(state, event.lifecycle());
        }
        if (state != null && state.endedAt != null || event.gpu() != null) {
            return null;
        }
        if (event.host() != null) {
            if (state == null) {
                return null;
            }
            host(state, event.host(), ts);
        } else {
            JobSample js = event.port();
            state = state == null ? FallbackState.of(js.holder()) : state;
            port(state, js, ts);
        }
        state.now = Math.max(state.now, ts);
        List<Observation> observations = new ArrayList<>();
        while (!state.open.isEmpty() && state.open.firstKey() + windowMs + CLOSE_GRACE_MS <= state.now) {
            Map.Entry<Long, FallbackState.Window> due = state.open.pollFirstEntry();
            state.judgedUntil = Math.max(state.judgedUntil, due.getKey() + windowMs);
            judge(state, due.getKey(), due.getValue(), observations);
        }
        return Result.of(state, observations);
    }

    @Override
    public Result<FallbackState> expire(FallbackState s, long streamTime) {
        if (s.endedAt != null && streamTime - s.endedAt > FORGET_ENDED_MS) {
            return Result.of(null);
        }
        if (s.endedAt == null && s.now > 0 && streamTime - s.now > FORGET_SILENT_MS) {
            return new Result<>(null, List.of(), s.now);
        }
        return null;
    }

    private Result<FallbackState> lifecycle(FallbackState state, JobRecord job) {
        if (JobLifecycle.ended(job)) {
            if (state == null || state.endedAt != null) {
                return null;
            }
            state.endedAt = job.updatedAt();
            state.open.clear();
            return Result.closeAll(state, job.updatedAt());
        }
        if (!JobRecord.RUNNING.equals(job.state())) {
            return null;
        }
        boolean restarted = state != null && JobLifecycle.restarted(job, state.endedAt, state.generation);
        FallbackState next = state == null || restarted ? FallbackState.of(job.uid(), job.job(), job.namespace())
                : state;
        next.generation = JobLifecycle.generation(job);
        next.socketIntended = SocketPorts.intended(job);
        next.job = job.job();
        next.namespace = job.namespace();
        return restarted ? Result.closeAll(next, job.updatedAt()) : Result.of(next);
    }

    private void port(FallbackState s, JobSample js, long ts) {
        PortTraffic p = js.traffic();
        // a shared device's bytes cannot be told apart between its jobs: it says nothing about this one
        if (js.shared() || p.txBytesPerSec() == null || p.rxBytesPerSec() == null || p.intervalMs() <= 0) {
            return;
        }
        FallbackState.Window w = window(s, ts);
        if (w != null) {
            w.rdmaBytes += (p.txBytesPerSec() + p.rxBytesPerSec()) * p.intervalMs() / 1000.0;
            w.ports.add(p.key());
        }
    }

    private void host(FallbackState s, HostIfaceSample h, long ts) {
        if (h.txBytesPerSec() == null || h.rxBytesPerSec() == null || h.intervalMs() <= 0) {
            return;
        }
        FallbackState.Window w = window(s, ts);
        if (w == null) {
            return;
        }
        FallbackState.Host sums = w.hosts.computeIfAbsent(h.key(), k -> new FallbackState.Host());
        sums.node = h.node();
        sums.txBytes += h.txBytesPerSec() * h.intervalMs() / 1000.0;
        sums.rxBytes += h.rxBytesPerSec() * h.intervalMs() / 1000.0;
        sums.ms += h.intervalMs();
        sums.samples++;
        sums.minPerSec = Math.min(sums.minPerSec, h.txBytesPerSec() + h.rxBytesPerSec());
        if (h.txBytesPerSec() + h.rxBytesPerSec() >= cfg.fallbackHostMinBytesPerSec()) {
            sums.busySamples++;
        }
    }

    /** The open window of {@code ts}, or null when that window was judged already. */
    private FallbackState.Window window(FallbackState s, long ts) {
        long start = ts - Math.floorMod(ts, windowMs);
        if (start < s.judgedUntil) {
            return null;
        }
        return s.open.computeIfAbsent(start, k -> new FallbackState.Window());
    }

    private void judge(FallbackState s, long start, FallbackState.Window w, List<Observation> observations) {
        if (w.ports.isEmpty() || s.socketIntended) {
            // no port of its own measured (no RDMA device, all shared, collectors silent): nothing to compare with
            return;
        }
        double rdma = w.rdmaBytes * 1000.0 / windowMs;
        double host = 0;
        Set<String> nodes = new TreeSet<>();
        Set<String> trainingNodes = new TreeSet<>();
        for (Map.Entry<String, FallbackState.Host> e : w.hosts.entrySet()) {
            FallbackState.Host h = e.getValue();
            host += h.perSec();
            if (h.ms < windowMs / 2) {
                continue;
            }
            nodes.add(h.node);
            if (trainingShaped(h, s.hostBackground.get(e.getKey()))) {
                trainingNodes.add(h.node);
            }
        }
        double share = rdma + host > 0 ? rdma / (rdma + host) : 1.0;
        boolean overTcp = share <= cfg.fallbackRdmaShareMax() && !trainingNodes.isEmpty()
                && trainingNodes.size() >= cfg.fallbackNodesFraction() * nodes.size();
        if (!overTcp) {
            // The background is what an interface carries between the job's bursts: the lowest rate of its samples,
            // not the window's mean, so that a window in which training over TCP began part way (NCCL init, then the
            // first iterations) does not teach a background every later window must rise five-fold above. Learned
            // only where the job did not look like it trained over TCP, and not from an interface that was busy
            // while RDMA was idle: when monitoring starts on a job already on TCP, its gradient traffic is no
            // background.
            boolean rdmaCarried = share > cfg.fallbackRdmaShareMax();
            w.hosts.forEach((key, h) -> {
                if (h.ms >= windowMs / 2 && (rdmaCarried || h.perSec() < cfg.fallbackHostMinBytesPerSec())) {
                    s.hostBackground.merge(key, h.minPerSec, Math::min);
                }
            });
        }
        if (s.firing) {
            if (share > cfg.fallbackRdmaShareMax() && rdma >= cfg.fallbackHostMinBytesPerSec()) {
                s.firing = false;
                s.fallbackWindows = 0;
                s.fallbackSince = null;
                observations.add(Observation.cleared(s.subject(), start));
            }
            return;
        }
        if (!overTcp) {
            // Only a window that shows the job training another way ends the run: RDMA carrying its traffic, or a
            // busy host interface that is one-sided (data loading, a checkpoint upload). A window with too little
            // traffic to say (an evaluation pass or checkpoint of a job on TCP, part of one) leaves the run as it is,
            // so that a job pausing every minute is still flagged.
            if (rdma >= cfg.fallbackHostMinBytesPerSec() && share > cfg.fallbackRdmaShareMax()
                    || w.hosts.values().stream().anyMatch(h -> h.perSec() >= cfg.fallbackHostMinBytesPerSec()
                    && !symmetric(h))) {
                s.fallbackWindows = 0;
                s.fallbackSince = null;
            }
            return;
        }
        s.fallbackWindows++;
        if (s.fallbackSince == null) {
            s.fallbackSince = start;
        }
        if (s.fallbackWindows >= cfg.fallbackWindows()) {
            s.firing = true;
            observations.add(Observation.holds(s.subject(),
                    condition(s, w, share, host, trainingNodes, nodes.size()), s.now));
        }
    }

    /** Busy, well above its own background, symmetric and sustained: a collective's traffic, not a transfer. */
    private boolean trainingShaped(FallbackState.Host h, Double background) {
        double rate = h.perSec();
        return rate >= cfg.fallbackHostMinBytesPerSec()
                && (background == null || rate >= cfg.fallbackHostRiseFactor() * background)
                && symmetric(h) && h.busySamples >= cfg.fallbackBusyFraction() * h.samples;
    }

    /** Sent and received alike, as a collective's traffic. */
    private boolean symmetric(FallbackState.Host h) {
        double low = Math.min(h.txPerSec(), h.rxPerSec());
        double high = Math.max(h.txPerSec(), h.rxPerSec());
        return high > 0 && low / high >= cfg.fallbackSymmetryMin();
    }

    private Condition condition(FallbackState s, FallbackState.Window w, double share, double host,
                                Set<String> trainingNodes, int nodes) {
        long forSeconds = (s.now - s.fallbackSince) / 1000;
        String node = trainingNodes.iterator().next();
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("uid", s.uid);
        labels.put("rdmaShare", String.format(Locale.ROOT, "%.3f", share));
        labels.put("hostBytesPerSec", String.valueOf(Math.round(host)));
        labels.put("rdmaPorts", String.valueOf(w.ports.size()));
        labels.put("nodes", trainingNodes.size() + "/" + nodes);
        String summary = "job " + s.job + (s.namespace == null ? "" : " (" + s.namespace + ")")
                + ": NCCL looks to have fallen back to TCP: for " + forSeconds + " s its " + w.ports.size()
                + " RDMA ports carried " + String.format(Locale.ROOT, "%.1f", 100 * share) + " % of its traffic while"
                + " the host interfaces of " + trainingNodes.size() + "/" + nodes + " of its nodes moved "
                + String.format(Locale.ROOT, "%.2f", host / 1e9) + " GB/s, sent and received alike. Likely: the job"
                + " was submitted without an RDMA device (--device=aliyun/erdma=1), the node has no eRDMA or its"
                + " controller is not installed, or the image lacks the RDMA user-space libraries (libibverbs,"
                + " librdmacm). Check: kubectl get node " + node + " -o jsonpath='{.status.allocatable}' lists"
                + " aliyun/erdma; ibv_devinfo in the pod; the image's RDMA libraries; the master pod's log has"
                + " 'NET/IB : Using [0]erdma_0:1/RoCE' (NET/Socket means TCP)";
        return new Condition(s.fallbackSince, Condition.WARNING, summary, labels);
    }
}
