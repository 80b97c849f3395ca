package io.rdmamon.jobs;

import io.rdmamon.model.Json;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The {@code job-windows} store's value format: binary. Each commit writes every job that got a sample since the
 * last one, whole, and a job of 8 nodes × 8 NICs holds about 130 port windows that repeat the job's and nodes' names:
 * as JSON that was ~35 KB per job and a tenth of the live app's CPU (issue 9). Internal to the app, not a public
 * contract. The first byte is the format version; a value that starts with {@code '{'} is the JSON that releases
 * before this format wrote, still read, so an upgraded app restores its windows from the old changelog.
 */
final class JobWindowsSerde extends CompactSerde<JobWindows> {
    static final byte FORMAT = 1;

    JobWindowsSerde() {
        super("job windows");
    }

    @Override
    byte[] write(JobWindows w) throws IOException {
        CompactWriter out = new CompactWriter(256 + 96 * w.newest.size());
        out.writeByte(FORMAT);
        out.varInt(w.open.size());
        for (Map.Entry<Long, TreeMap<String, PortWindow>> window : w.open.entrySet()) {
            out.writeLong(window.getKey());
            out.varInt(window.getValue().size());
            for (Map.Entry<String, PortWindow> port : window.getValue().entrySet()) {
                out.string(port.getKey());
                PortWindow p = port.getValue();
                out.string(p.job());
                out.string(p.namespace());
                out.varInt(p.expectedRanks());
                out.string(p.node());
                out.string(p.device());
                out.varInt(p.port());
                out.varInt(p.ranks().size());
                for (int rank : p.ranks()) {
                    out.varInt(rank);
                }
                out.varInt(p.sharedBy());
                out.writeDouble(p.txBytes());
                out.writeLong(p.txMs());
                out.writeDouble(p.rxBytes());
                out.writeLong(p.rxMs());
                out.nullableLong(p.rateBytesPerSec());
            }
        }
        out.varInt(w.hosts.size());
        for (Map.Entry<Long, TreeMap<String, HostWindow>> window : w.hosts.entrySet()) {
            out.writeLong(window.getKey());
            out.varInt(window.getValue().size());
            for (Map.Entry<String, HostWindow> host : window.getValue().entrySet()) {
                out.string(host.getKey());
                out.writeDouble(host.getValue().bytes());
                out.writeLong(host.getValue().ms());
            }
        }
        out.counts(w.newest);
        out.nullableLong(w.closedUntil);
        out.varInt(w.instanceTypes.size());
        for (Map.Entry<String, String> type : w.instanceTypes.entrySet()) {
            out.string(type.getKey());
            out.string(type.getValue());
        }
        return out.toByteArray();
    }

    @Override
    JobWindows read(byte[] bytes) throws IOException {
        if (bytes.length > 0 && bytes[0] == '{') {
            return Json.MAPPER.readValue(bytes, JobWindows.class);
        }
        CompactReader in = new CompactReader(bytes);
        byte format = in.readByte();
        if (format != FORMAT) {
            throw new IOException("unknown job windows format " + format + " (this rdmamon writes " + FORMAT + ")");
        }
        JobWindows w = new JobWindows();
        for (int windows = in.varInt(); windows > 0; windows--) {
            long start = in.readLong();
            TreeMap<String, PortWindow> ports = new TreeMap<>();
            for (int n = in.varInt(); n > 0; n--) {
                String key = in.string();
                String job = in.string();
                String namespace = in.string();
                int expectedRanks = in.varInt();
                String node = in.string();
                String device = in.string();
                int port = in.varInt();
                int rankCount = in.varInt();
                List<Integer> ranks = new ArrayList<>(rankCount);
                for (int i = 0; i < rankCount; i++) {
                    ranks.add(in.varInt());
                }
                ports.put(key, new PortWindow(job, namespace, expectedRanks, node, device, port, ranks, in.varInt(),
                        in.readDouble(), in.readLong(), in.readDouble(), in.readLong(),
                        in.nullableLong()));
            }
            w.open.put(start, ports);
        }
        for (int windows = in.varInt(); windows > 0; windows--) {
            long start = in.readLong();
            TreeMap<String, HostWindow> hosts = new TreeMap<>();
            for (int n = in.varInt(); n > 0; n--) {
                hosts.put(in.string(), new HostWindow(in.readDouble(), in.readLong()));
            }
            w.hosts.put(start, hosts);
        }
        w.newest.putAll(in.counts());
        w.closedUntil = in.nullableLong();
        for (int n = in.varInt(); n > 0; n--) {
            w.instanceTypes.put(in.string(), in.string());
        }
        if (!in.atEnd()) {
            throw new IOException("bytes left after the job windows");
        }
        return w;
    }
}
