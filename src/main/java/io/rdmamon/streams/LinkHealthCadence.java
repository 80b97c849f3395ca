package io.rdmamon.streams;

import io.rdmamon.jobs.AssignedSample;
import io.rdmamon.jobs.Holder;
import io.rdmamon.model.CounterClass;
import io.rdmamon.model.LinkHealth;
import io.rdmamon.model.PortSample;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Decides which port samples become {@code rdma.link-health} records: the first sample of each
 * {@code streams.link.health.interval.ms} of event time per port, and at once every sample whose verdict differs from
 * the last one published (state, physical state, holder, sharing) or that counted errors. The per-second series of
 * every port is in {@code rdma.port-samples} already; link health is the judgement, and it is news only when it
 * changes (congestion counters alone are routine under load and do not count). What was last published is kept in memory: after a restart, each port's next sample is published again
 * (a repeat, never a gap).
 */
final class LinkHealthCadence implements Processor<String, AssignedSample, String, LinkHealth> {
    private record Published(long bucket, String state, String physState, String job, Integer sharedBy) {
    }

    /** Congestion notifications are routine on a busy RoCE link: alone they are no reason to publish. */
    private static final String CONGESTION = CounterClass.CONGESTION.wireName();

    private final long intervalMs;
    private final Map<String, Published> last = new HashMap<>();
    private ProcessorContext<String, LinkHealth> context;

    LinkHealthCadence(long intervalMs) {
        this.intervalMs = intervalMs;
    }

    @Override
    public void init(ProcessorContext<String, LinkHealth> context) {
        this.context = context;
    }

    @Override
    public void process(Record<String, AssignedSample> record) {
        AssignedSample a = record.value();
        PortSample s = a.sample();
        Holder holder = a.assignment().primary();
        String job = holder == null ? null : holder.uid();
        Integer sharedBy = holder == null ? null : a.assignment().sharedBy();
        Published now = new Published(Math.floorDiv(s.ts(), intervalMs), s.state(), s.physState(), job, sharedBy);
        String port = record.key(); // the sample's key, node/device/port (decode keys samples so)
        Published before = last.get(port);
        boolean errors = hasErrorsBesidesCongestion(s);
        if (before != null && !errors && before.bucket() >= now.bucket() && sameVerdict(before, now)) {
            return;
        }
        last.put(port, now);
        context.forward(new Record<>(port, LinkHealths.of(a), record.timestamp()));
    }

    /** A plain loop: this runs for every sample, and the map is nearly always empty (its key set is a new object). */
    private static boolean hasErrorsBesidesCongestion(PortSample s) {
        if (s.errorClasses().isEmpty()) {
            return false;
        }
        for (String errorClass : s.errorClasses().keySet()) {
            if (!CONGESTION.equals(errorClass)) {
                return true;
            }
        }
        return false;
    }

    private static boolean sameVerdict(Published a, Published b) {
        return Objects.equals(a.state(), b.state()) && Objects.equals(a.physState(), b.physState())
                && Objects.equals(a.job(), b.job()) && Objects.equals(a.sharedBy(), b.sharedBy());
    }
}
