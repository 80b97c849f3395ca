package io.rdmamon.jobs;

import java.util.List;
import java.util.Map;

/**
 * A job's per-port traffic in one closed window [windowStart, windowEnd): the source of job bandwidth and stragglers;
 * and the traffic of its nodes' host interfaces in the same window (empty when none reported); and the instance type of
 * each of its nodes where the job record gave one.
 */
public record JobWindow(String uid, String job, String namespace, long windowStart, long windowEnd,
                        int expectedRanks, List<PortWindow> ports, List<HostWindow> hosts,
                        Map<String, String> instanceTypes) {
    public JobWindow {
        ports = ports == null ? List.of() : List.copyOf(ports);
        hosts = hosts == null ? List.of() : List.copyOf(hosts);
        instanceTypes = instanceTypes == null ? Map.of() : Map.copyOf(instanceTypes);
    }
}
