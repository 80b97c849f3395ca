package io.rdmamon.jobs;

import io.rdmamon.model.GpuSample;
import io.rdmamon.model.HostIfaceSample;
import io.rdmamon.model.JobRecord;
import io.rdmamon.model.Json;
import io.rdmamon.model.PortSample;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code job-event-batches} repartition topic's value format: binary, because every sample crosses this topic
 * once and JSON made its encoding and decoding the stream app's largest cost. Internal to the app (not a public
 * contract): a batch's strings (node, device, state names) and holders are written once and referred to by index,
 * so a node pass of eight ports held by one job costs its numbers and one copy of the names. Job records, rare here,
 * travel as their JSON. A port sample travels as its {@link PortTraffic}, what the job side reads of it. The first byte
 * is the format version: format 1 (releases before this one, with whole port samples) is still read, so an upgraded app
 * takes over what its predecessor left in the topic; a record of an unknown version fails with a
 * {@link org.apache.kafka.common.errors.SerializationException} that names it (an app of a later release still
 * writing to the topic).
 */
public final class JobEventBatchSerde extends CompactSerde<JobEventBatch> {
    static final byte FORMAT = 2;
    /** Whole port samples, as releases before {@link #FORMAT} 2 wrote them. */
    static final byte FORMAT_WHOLE_SAMPLES = 1;
    private static final byte PORT = 1;
    private static final byte HOST = 2;
    private static final byte LIFECYCLE = 3;
    /** Added to format 2 with the GPU samples (issue 44): an app of an earlier release fails on it, naming the kind. */
    private static final byte GPU = 4;
    /** A GPU sample with its optional fields (MIG devices, read error, process activity); {@link #GPU} is still read. */
    private static final byte GPU_WITH_ACTIVITY = 5;

    public JobEventBatchSerde() {
        super("a job event batch");
    }

    @Override
    byte[] write(JobEventBatch batch) throws IOException {
        Writer out = new Writer(64 + 96 * batch.events().size());
        out.writeByte(FORMAT);
        out.varInt(batch.events().size());
        for (JobEvent event : batch.events()) {
            if (event.port() != null) {
                out.writeByte(PORT);
                out.port(event.port());
            } else if (event.host() != null) {
                out.writeByte(HOST);
                out.host(event.host());
            } else if (event.gpu() != null) {
                out.writeByte(GPU_WITH_ACTIVITY);
                out.gpu(event.gpu());
            } else {
                out.writeByte(LIFECYCLE);
                byte[] json = Json.toBytes(event.lifecycle());
                out.varInt(json.length);
                out.write(json);
            }
        }
        return out.toByteArray();
    }

    @Override
    JobEventBatch read(byte[] bytes) throws IOException {
        Reader in = new Reader(bytes);
        byte format = in.readByte();
        if (format != FORMAT && format != FORMAT_WHOLE_SAMPLES) {
            throw new IOException("unknown job event batch format " + format + " (this rdmamon writes " + FORMAT
                    + ")");
        }
        int size = in.varInt();
        List<JobEvent> events = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            byte kind = in.readByte();
            switch (kind) {
                case PORT -> events.add(JobEvent.of(format == FORMAT ? in.port() : in.wholeSamplePort()));
                case HOST -> events.add(JobEvent.of(in.host()));
                case GPU -> events.add(JobEvent.of(in.gpu(false)));
                case GPU_WITH_ACTIVITY -> events.add(JobEvent.of(in.gpu(true)));
                case LIFECYCLE -> {
                    byte[] json = new byte[in.varInt()];
                    in.readFully(json);
                    events.add(JobEvent.of(Json.MAPPER.readValue(json, JobRecord.class)));
                }
                default -> throw new IOException("unknown job event kind " + kind);
            }
        }
        return new JobEventBatch(events);
    }

    /** Writes samples; a string or holder seen before in the batch is written as its index. */
    private static final class Writer extends CompactWriter {
        /** By uid, then compared whole: a record's hash would walk all the job's ranks for every port. */
        private final Map<String, Integer> holderIndexes = new HashMap<>();
        private final List<Holder> holders = new ArrayList<>();

        Writer(int expectedSize) {
            super(expectedSize);
        }

        void port(JobSample js) throws IOException {
            PortTraffic t = js.traffic();
            string(t.node());
            string(t.device());
            varInt(t.port());
            writeLong(t.ts());
            writeLong(t.intervalMs());
            nullableLong(t.rateBytesPerSec());
            nullableDouble(t.txBytesPerSec());
            nullableDouble(t.rxBytesPerSec());
            holder(js.holder());
            varInt(js.sharedBy());
        }

        void host(HostIfaceSample h) throws IOException {
            varInt(h.v());
            string(h.node());
            string(h.iface());
            writeLong(h.ts());
            writeLong(h.intervalMs());
            nullableDouble(h.txBytesPerSec());
            nullableDouble(h.rxBytesPerSec());
            nullableDouble(h.txPacketsPerSec());
            nullableDouble(h.rxPacketsPerSec());
            counts(h.errors());
        }

        void gpu(GpuSample g) throws IOException {
            varInt(g.v());
            string(g.node());
            varInt(g.gpu());
            string(g.uuid());
            writeLong(g.ts());
            writeLong(g.intervalMs());
            nullableDouble(g.utilizationPercent());
            nullableDouble(g.memoryUtilizationPercent());
            nullableDouble(g.powerWatts());
            nullableDouble(g.smClockMHz());
            // processes + 1: 0 stands for null
            varInt(g.processes() == null ? 0 : g.processes() + 1);
            List<String> mig = g.migDevices() == null ? List.of() : g.migDevices();
            varInt(mig.size());
            for (String id : mig) {
                string(id);
            }
            string(g.error());
            nullableDouble(g.processCpuCores());
            nullableDouble(g.processReadBytesPerSec());
            nullableDouble(g.processWriteBytesPerSec());
            string(g.processStates());
        }

        private void holder(Holder holder) throws IOException {
            Integer index = holderIndexes.get(holder.uid());
            if (index != null && holders.get(index).equals(holder)) {
                varInt(index + 1);
                return;
            }
            holderIndexes.put(holder.uid(), holders.size());
            holders.add(holder);
            varInt(0);
            string(holder.uid());
            string(holder.job());
            string(holder.namespace());
            varInt(holder.expectedRanks());
            varInt(holder.ranks().size());
            for (JobRecord.Rank rank : holder.ranks()) {
                varInt(rank.rank());
                string(rank.pod());
                string(rank.node());
                varInt(rank.devices().size());
                for (String device : rank.devices()) {
                    string(device);
                }
            }
        }
    }

    /** Reads what {@link Writer} wrote, in the same order. */
    private static final class Reader extends CompactReader {
        private final List<Holder> holders = new ArrayList<>();

        Reader(byte[] bytes) {
            super(bytes);
        }

        JobSample port() throws IOException {
            PortTraffic t = new PortTraffic(string(), string(), varInt(), readLong(), readLong(), nullableLong(),
                    nullableDouble(), nullableDouble());
            return new JobSample(t, holder(), varInt());
        }

        /** A port sample as {@link #FORMAT_WHOLE_SAMPLES} wrote it, whole. */
        JobSample wholeSamplePort() throws IOException {
            PortSample s = new PortSample(varInt(), string(), string(), varInt(), readLong(), readLong(),
                    string(), string(), string(), string(), nullableLong(), nullableDouble(), nullableDouble(),
                    nullableDouble(), nullableDouble(), counts(), counts());
            return new JobSample(PortTraffic.of(s), holder(), varInt());
        }

        HostIfaceSample host() throws IOException {
            return new HostIfaceSample(varInt(), string(), string(), readLong(), readLong(),
                    nullableDouble(), nullableDouble(), nullableDouble(), nullableDouble(), counts());
        }

        GpuSample gpu(boolean withActivity) throws IOException {
            int v = varInt();
            String node = string();
            int gpu = varInt();
            String uuid = string();
            long ts = readLong();
            long intervalMs = readLong();
            Double utilization = nullableDouble();
            Double memory = nullableDouble();
            Double power = nullableDouble();
            Double clock = nullableDouble();
            int processes = varInt();
            if (!withActivity) {
                return new GpuSample(v, node, gpu, uuid, ts, intervalMs, utilization, memory, power, clock,
                        processes == 0 ? null : processes - 1);
            }
            int migCount = varInt();
            List<String> mig = migCount == 0 ? null : new ArrayList<>(migCount);
            for (int i = 0; i < migCount; i++) {
                mig.add(string());
            }
            return new GpuSample(v, node, gpu, uuid, ts, intervalMs, utilization, memory, power, clock,
                    processes == 0 ? null : processes - 1, mig, string(), nullableDouble(), nullableDouble(),
                    nullableDouble(), string());
        }

        private Holder holder() throws IOException {
            int index = varInt();
            if (index > 0) {
                return holders.get(index - 1);
            }
            String uid = string();
            String job = string();
            String namespace = string();
            int expectedRanks = varInt();
            int size = varInt();
            List<JobRecord.Rank> ranks = new ArrayList<>(size);
            for (int i = 0; i < size; i++) {
                int rank = varInt();
                String pod = string();
                String node = string();
                int devices = varInt();
                List<String> names = new ArrayList<>(devices);
                for (int d = 0; d < devices; d++) {
                    names.add(string());
                }
                ranks.add(new JobRecord.Rank(rank, pod, node, List.copyOf(names)));
            }
            Holder holder = new Holder(uid, job, namespace, ranks, expectedRanks);
            holders.add(holder);
            return holder;
        }
    }
}
