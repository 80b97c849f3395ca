package io.rdmamon.jobs;

import io.rdmamon.model.JobBandwidth;
import io.rdmamon.model.JobBandwidth.RankBandwidth;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A closed {@link JobWindow} as the public {@link JobBandwidth} record.
 *
 * <p><b>Shared devices.</b> RDMA bytes bypass the kernel, so nothing says which job moved them. A device held by
 * {@code n} Running jobs is split equally: each gets 1/n of its bytes, and the job's figures are marked
 * {@code estimated}. Likewise a device used by several ranks of one job is split equally among them, and those ranks
 * are marked estimated (the job total stays exact). Ports without a rate in the window are unknown and left out:
 * {@code ranksReporting} counts ranks with at least one measured port.
 *
 * <p><b>Per NIC.</b> {@code nicBytesPerSec} is the busier direction (a ring all-reduce sends and receives alike; bus
 * bandwidth figures are one direction) of each measured port's job bytes, averaged over those ports, so it compares
 * with a per-NIC figure whatever the job's size. {@code expectedNicBytesPerSec} is the same average of each port's
 * {@link NicExpectations} figure, null unless every measured port has one.
 */
public final class JobBandwidths {
    private JobBandwidths() {
    }

    public static JobBandwidth of(JobWindow window, NicExpectations expectations) {
        double jobTx = 0;
        double jobRx = 0;
        boolean estimated = false;
        int nics = 0;
        double nicSum = 0;
        double expectedSum = 0;
        boolean allExpected = true;
        Map<Integer, RankSum> ranks = new TreeMap<>();
        for (PortWindow port : window.ports()) {
            Double tx = port.txBytesPerSec();
            Double rx = port.rxBytesPerSec();
            if (tx == null && rx == null) {
                continue;
            }
            double jobShareTx = tx == null ? 0 : tx / port.sharedBy();
            double jobShareRx = rx == null ? 0 : rx / port.sharedBy();
            jobTx += jobShareTx;
            jobRx += jobShareRx;
            nics++;
            nicSum += Math.max(jobShareTx, jobShareRx);
            Double expected = expectations.expected(window.instanceTypes().get(port.node()), port.device());
            allExpected &= expected != null;
            expectedSum += expected == null ? 0 : expected;
            estimated |= port.shared();
            int rankCount = Math.max(1, port.ranks().size());
            for (int rank : port.ranks()) {
                RankSum sum = ranks.computeIfAbsent(rank, r -> new RankSum(port.node()));
                sum.tx += jobShareTx / rankCount;
                sum.rx += jobShareRx / rankCount;
                sum.estimated |= port.shared() || rankCount > 1;
            }
        }
        double total = jobTx + jobRx;
        List<RankBandwidth> rankList = new ArrayList<>();
        List<Double> totals = new ArrayList<>();
        ranks.forEach((rank, sum) -> {
            rankList.add(new RankBandwidth(rank, sum.node, sum.tx, sum.rx,
                    total > 0 ? (sum.tx + sum.rx) / total : null, sum.estimated));
            totals.add(sum.tx + sum.rx);
        });
        totals.sort(Double::compare);
        Double host = hostBytesPerSec(window.hosts());
        Double rdmaShare = host == null || total + host <= 0 ? null : total / (total + host);
        return new JobBandwidth(JobBandwidth.VERSION, window.uid(), window.job(), window.namespace(),
                window.windowStart(), window.windowEnd(), jobTx, jobRx, rankList.size(), window.expectedRanks(),
                totals.isEmpty() ? null : totals.get(0), median(totals),
                totals.isEmpty() ? null : totals.get(totals.size() - 1), estimated, rankList, host, rdmaShare,
                nics == 0 ? null : nicSum / nics, nics == 0 || !allExpected ? null : expectedSum / nics);
    }

    /** The summed window average of every host interface that reported, null when none did. */
    private static Double hostBytesPerSec(List<HostWindow> hosts) {
        Double sum = null;
        for (HostWindow h : hosts) {
            Double rate = h.bytesPerSec();
            if (rate != null) {
                sum = (sum == null ? 0 : sum) + rate;
            }
        }
        return sum;
    }

    /** Median of a sorted list, null when empty. */
    public static Double median(List<Double> sorted) {
        int n = sorted.size();
        if (n == 0) {
            return null;
        }
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private static final class RankSum {
        private final String node;
        private double tx;
        private double rx;
        private boolean estimated;

        private RankSum(String node) {
            this.node = node;
        }
    }
}
