package io.rdmamon.sim;

import io.rdmamon.model.JobRecord;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The traffic of several simulated jobs placed on a cluster, per physical port and per node: what a port carries is
 * the sum of every job rank using it (a shared NIC carries both jobs). Rank {@code r}'s device {@code d} in a job's
 * Running record carries traffic index {@code d} of its model; devices beyond the model's {@code devicesPerRank} are
 * allocated but carry nothing. Used by the scenario recorder and by a live simulated cluster alike.
 */
public final class ClusterTraffic {
    private record Feed(TrainingTrafficModel model, int rank, int device) {
    }

    private final Map<String, List<Feed>> portFeeds = new HashMap<>();
    private final Map<String, List<Feed>> nodeFeeds = new HashMap<>();

    /** Places a job's ranks as its Running record says. */
    public ClusterTraffic add(JobRecord running, TrainingTrafficModel model) {
        for (JobRecord.Rank rank : running.ranks()) {
            nodeFeeds.computeIfAbsent(rank.node(), n -> new ArrayList<>()).add(new Feed(model, rank.rank(), -1));
            int carrying = Math.min(rank.devices().size(), model.spec().devicesPerRank());
            for (int d = 0; d < carrying; d++) {
                portFeeds.computeIfAbsent(portKey(rank.node(), rank.devices().get(d)), k -> new ArrayList<>())
                        .add(new Feed(model, rank.rank(), d));
            }
        }
        return this;
    }

    /** What a port (port 1 of {@code device} on {@code node}) carried over [fromMs, toMs); idle when no job uses it. */
    public PortTraffic port(String node, String device, long fromMs, long toMs) {
        PortTraffic traffic = PortTraffic.IDLE;
        for (Feed feed : portFeeds.getOrDefault(portKey(node, device), List.of())) {
            traffic = traffic.plus(feed.model().port(feed.rank(), feed.device(), fromMs, toMs));
        }
        return traffic;
    }

    /** What the jobs made {@code node}'s host network carry over [fromMs, toMs) (checkpoints, TCP fallback). */
    public HostTraffic host(String node, long fromMs, long toMs) {
        HostTraffic traffic = HostTraffic.NONE;
        for (Feed feed : nodeFeeds.getOrDefault(node, List.of())) {
            traffic = traffic.plus(feed.model().host(feed.rank(), fromMs, toMs));
        }
        return traffic;
    }

    private static String portKey(String node, String device) {
        return node + "/" + device;
    }
}
