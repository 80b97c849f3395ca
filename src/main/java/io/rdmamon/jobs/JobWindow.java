package io.rdmamon.jobs;

import java.util.List;

/**
 * A job's per-port traffic in one closed window [windowStart, windowEnd): the source of job bandwidth and stragglers;
 * and the traffic of its nodes' host interfaces in the same window (empty when none reported).
 */
public record JobWindow(String uid, String job, String namespace, long windowStart, long windowEnd,
                        int expectedRanks, List<PortWindow> ports, List<HostWindow> hosts) {
    public JobWindow {
        ports = ports == null ? List.of() : List.copyOf(ports);
        hosts = hosts == null ? List.of() : List.copyOf(hosts);
    }
}
