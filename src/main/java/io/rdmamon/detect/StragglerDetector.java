package io.rdmamon.detect;

import io.rdmamon.jobs.JobBandwidths;
import io.rdmamon.jobs.JobWindow;
import io.rdmamon.jobs.PortWindow;
import io.rdmamon.model.Alert;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * STRAGGLER: a job's port whose traffic deviates persistently from its rail peers (the same device and port on the
 * job's other nodes, which carry similar traffic in ring/tree collectives), or whose traffic is missing while they
 * communicate. Judged per closed window of job bandwidth:
 * <ul>
 *   <li>deviates: robust z-score |x − median| / max(1.4826·MAD, {@code mad.floor}·median) above
 *       {@code streams.straggler.z.threshold} and |x − median| ≥ {@code min.deviation}·median (needs 3+ peers);</li>
 *   <li>missing: below {@code missing.fraction} of the peers' median (works with a single peer).</li>
 * </ul>
 * Fires when a port was flagged in {@code min.flagged} of the last {@code windows} judged windows (continuity);
 * resolves after {@code clear.windows} normal ones, or 5 min after the job's windows stop (job ended). Never judged: windows
 * within {@code streams.straggler.warmup.ms} of the job's first traffic, rails whose peers move less than
 * {@code min.bytes.per.sec}, ports that did not report (unknown, not missing), and ports of shared devices (estimates).
 */
public final class StragglerDetector implements Detector<JobWindow, StragglerDetector.State> {

    /** One port's recent verdicts, newest last ({@code true} = flagged), and when its current run of flags began. */
    public record Track(List<Boolean> recent, Long flaggedSince, Long cleanSince, boolean firing) {
        public Track {
            recent = recent == null ? List.of() : List.copyOf(recent);
        }
    }

    /** Per job: when it first had traffic, its last window, and a track per judged port. */
    public record State(Long firstTrafficAt, long lastWindowEnd, Map<String, Track> tracks) {
        public State {
            tracks = tracks == null ? Map.of() : Map.copyOf(tracks);
        }
    }

    private final DetectorConfig cfg;
    private final long forgetAfterMs;

    /**
     * A job without a window for 5 minutes (or 3 windows, if longer) of stream time has ended or lost its samples:
     * its incidents resolve at its last window's end. Generous, because after a restart with a backlog stream time
     * can run ahead of a job's windows for a while.
     */
    public StragglerDetector(DetectorConfig cfg, long windowSizeMs) {
        this.cfg = cfg;
        this.forgetAfterMs = Math.max(300_000, 3 * windowSizeMs);
    }

    @Override
    public String type() {
        return Alert.STRAGGLER;
    }

    @Override
    public Class<State> stateType() {
        return State.class;
    }

    @Override
    public Result<State> expire(State state, long streamTime) {
        return streamTime - state.lastWindowEnd() > forgetAfterMs
                ? new Result<>(null, List.of(), state.lastWindowEnd()) : null;
    }

    @Override
    public Result<State> inspect(State state, JobWindow window, long ts) {
        Long firstTraffic = state == null ? null : state.firstTrafficAt();
        Map<String, Boolean> verdicts = judge(window);
        if (firstTraffic == null && !verdicts.isEmpty()) {
            firstTraffic = window.windowStart();
        }
        Map<String, Track> tracks = new TreeMap<>(state == null ? Map.of() : state.tracks());
        List<Observation> observations = new ArrayList<>();
        boolean warm = firstTraffic != null && window.windowStart() - firstTraffic >= cfg.stragglerWarmupMs();
        if (warm) {
            Map<String, PortWindow> ports = window.ports().stream()
                    .collect(Collectors.toMap(PortWindow::portKey, p -> p, (a, b) -> a));
            verdicts.forEach((portKey, flagged) -> {
                Track next = advance(tracks.get(portKey), flagged, window);
                Subject subject = subject(window, ports.get(portKey));
                if (next.firing() && (tracks.get(portKey) == null || !tracks.get(portKey).firing())) {
                    observations.add(Observation.holds(subject, condition(window, ports.get(portKey), next),
                            window.windowEnd()));
                } else if (!next.firing() && tracks.get(portKey) != null && tracks.get(portKey).firing()) {
                    observations.add(Observation.cleared(subject, next.cleanSince() == null
                            ? window.windowStart() : next.cleanSince()));
                }
                tracks.put(portKey, next);
            });
        }
        return Result.of(new State(firstTraffic, window.windowEnd(), tracks), observations);
    }

    /** Port key → flagged, for every port that could be judged in this window. */
    private Map<String, Boolean> judge(JobWindow window) {
        Map<String, List<PortWindow>> rails = new TreeMap<>();
        for (PortWindow p : window.ports()) {
            if (!p.shared() && p.totalBytesPerSec() != null) {
                rails.computeIfAbsent(p.rail(), r -> new ArrayList<>()).add(p);
            }
        }
        Map<String, Boolean> verdicts = new TreeMap<>();
        for (List<PortWindow> rail : rails.values()) {
            if (rail.size() < 2) {
                continue;
            }
            List<Double> all = sorted(rail.stream().map(PortWindow::totalBytesPerSec).toList());
            double median = JobBandwidths.median(all);
            List<Double> deviations = sorted(all.stream().map(x -> Math.abs(x - median)).toList());
            double scale = Math.max(1.4826 * JobBandwidths.median(deviations), cfg.stragglerMadFloor() * median);
            for (PortWindow p : rail) {
                double x = p.totalBytesPerSec();
                List<Double> peers = new ArrayList<>(all);
                peers.remove(x);
                double peerMedian = JobBandwidths.median(sorted(peers));
                if (peerMedian < cfg.stragglerMinBytesPerSec()) {
                    continue;
                }
                boolean missing = x < cfg.stragglerMissingFraction() * peerMedian;
                boolean deviates = rail.size() >= 3 && scale > 0 && Math.abs(x - median) / scale
                        > cfg.stragglerZThreshold() && Math.abs(x - median) >= cfg.stragglerMinDeviation() * median;
                verdicts.put(p.portKey(), missing || deviates);
            }
        }
        return verdicts;
    }

    private Track advance(Track previous, boolean flagged, JobWindow window) {
        List<Boolean> recent = new ArrayList<>(previous == null ? List.of() : previous.recent());
        recent.add(flagged);
        while (recent.size() > Math.max(cfg.stragglerWindows(), cfg.stragglerClearWindows())) {
            recent.remove(0);
        }
        List<Boolean> considered = recent.subList(Math.max(0, recent.size() - cfg.stragglerWindows()), recent.size());
        long flags = considered.stream().filter(b -> b).count();
        Long flaggedSince = flags == 0 ? null : previous != null && previous.flaggedSince() != null
                ? previous.flaggedSince() : window.windowStart();
        boolean wasFiring = previous != null && previous.firing();
        Long cleanSince = flagged ? null : previous != null && previous.cleanSince() != null ? previous.cleanSince()
                : window.windowStart();
        int cleanRun = 0;
        for (int i = recent.size() - 1; i >= 0 && !recent.get(i); i--) {
            cleanRun++;
        }
        boolean firing = wasFiring ? cleanRun < cfg.stragglerClearWindows() : flags >= cfg.stragglerMinFlagged();
        return new Track(recent, flaggedSince, cleanSince, firing);
    }

    private static Subject subject(JobWindow window, PortWindow port) {
        return new Subject(port.portKey(), window.job(), window.namespace(), port.node(), port.device(), port.port());
    }

    private Condition condition(JobWindow window, PortWindow port, Track track) {
        List<Double> peers = sorted(window.ports().stream()
                .filter(p -> p.rail().equals(port.rail()) && !p.portKey().equals(port.portKey()) && !p.shared()
                        && p.totalBytesPerSec() != null)
                .map(PortWindow::totalBytesPerSec).toList());
        double peerMedian = peers.isEmpty() ? 0 : JobBandwidths.median(peers);
        double x = port.totalBytesPerSec();
        boolean missing = x < cfg.stragglerMissingFraction() * peerMedian;
        String ranks = port.ranks().stream().map(String::valueOf).collect(Collectors.joining(","));
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("uid", window.uid());
        labels.put("ranks", ranks);
        labels.put("reason", missing ? "missing-traffic" : "deviates");
        labels.put("bytesPerSec", String.format(Locale.ROOT, "%.0f", x));
        labels.put("peerMedianBytesPerSec", String.format(Locale.ROOT, "%.0f", peerMedian));
        long flags = track.recent().stream().filter(b -> b).count();
        String summary = "job " + window.job() + ": rank " + ranks + " on " + port.portKey() + " carries "
                + Math.round(100 * x / Math.max(1, peerMedian)) + "% of its rail peers' median traffic ("
                + (missing ? "traffic missing" : "deviates") + " in " + flags + " of the last "
                + track.recent().size() + " windows)";
        return new Condition(track.flaggedSince(), Condition.WARNING, summary, labels);
    }

    private static List<Double> sorted(List<Double> values) {
        List<Double> out = new ArrayList<>(values);
        out.sort(Double::compare);
        return out;
    }
}
