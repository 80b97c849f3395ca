package io.rdmamon.jobs;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility;

import java.util.Map;
import java.util.TreeMap;

/**
 * One job's open bandwidth windows, as {@link JobWindowProcessor} keeps them: per window start, each port's sums;
 * per port, its newest sample time; and the end of the last window emitted. Mutable and kept whole per job, so a
 * sample costs no store encoding and a commit writes one record per job, whatever the job's size. While the job runs it
 * also keeps the instance type of each of its nodes, from its {@code rdma.jobs} record, for the expected NIC figure.
 */
@JsonAutoDetect(fieldVisibility = Visibility.ANY, getterVisibility = Visibility.NONE,
        isGetterVisibility = Visibility.NONE)
final class JobWindows {
    /** Window start → port (node/device/port) → its sums in that window. */
    TreeMap<Long, TreeMap<String, PortWindow>> open = new TreeMap<>();
    /** Window start → host interface (node/iface) of the job's nodes → its sums in that window. */
    TreeMap<Long, TreeMap<String, HostWindow>> hosts = new TreeMap<>();
    /** Port → newest sample time. */
    Map<String, Long> newest = new TreeMap<>();
    /** End of the last window emitted; null before the first. */
    Long closedUntil;
    /** Node → instance type, of the job's Running record; empty when none is known or the job stopped. */
    Map<String, String> instanceTypes = new TreeMap<>();

    boolean isEmpty() {
        return open.isEmpty() && hosts.isEmpty() && newest.isEmpty() && instanceTypes.isEmpty();
    }
}
