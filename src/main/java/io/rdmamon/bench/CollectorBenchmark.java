package io.rdmamon.bench;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.collector.CollectorConfig;
import io.rdmamon.collector.SampleJson;
import io.rdmamon.collector.sysfs.SysfsPass;
import io.rdmamon.collector.sysfs.SysfsPortSource;
import io.rdmamon.model.PortSample;
import io.rdmamon.sim.SysfsTreeWriter;
import io.rdmamon.sim.SysfsTreeWriter.DeviceKind;
import io.rdmamon.support.FileTrees;

import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time of one collector sampling pass over a simulated 8-device × 2-port node with full {@code counters/} and
 * {@code hw_counters/} (mlx5 layout), and the JSON size of the records it produces. Counters change between passes so
 * every pass computes real rates and error increments. Only the sampling thread's CPU: what the whole process costs
 * the node is {@code --process} ({@link CollectorProcessBenchmark}).
 */
public final class CollectorBenchmark {
    private CollectorBenchmark() {
    }

    public static void run(int devices, int ports, int warmupPasses, int passes, PrintWriter out) throws Exception {
        Path root = Files.createTempDirectory(SysfsTreeWriter.preferredTempRoot(), "rdmamon-bench-sysfs");
        try {
            // as on a node: values change in place, files stay open, folders are listed once per rescan interval
            SysfsTreeWriter tree = SysfsTreeWriter.inPlace(root);
            for (int d = 0; d < devices; d++) {
                tree.addDevice("mlx5_" + d, DeviceKind.MLX5, ports, SysfsTreeWriter.ETHERNET);
            }
            SysfsPortSource source = new SysfsPortSource(root, "bench-node", null, null, new SimpleMeterRegistry(), true,
                    CollectorConfig.DEFAULT_SYSFS_RESCAN_MS);
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            SampleJson json = new SampleJson();
            long bytes = 0;
            int records = 0;
            long cpu = 0;
            long wall = 0;
            for (int i = 0; i < warmupPasses + passes; i++) {
                for (int d = 0; d < devices; d++) {
                    for (int p = 1; p <= ports; p++) {
                        tree.addTraffic("mlx5_" + d, p, 1_000_000_000L, 900_000_000L, 250_000, 240_000);
                        tree.addCounter("mlx5_" + d, p, "np_cnp_sent", i % 3);
                    }
                }
                long cpu0 = threads.getCurrentThreadCpuTime();
                long wall0 = System.nanoTime();
                SysfsPass pass = source.sample(System.currentTimeMillis(), System.nanoTime());
                byte[][] encoded = new byte[pass.samples().size()][];
                for (int s = 0; s < encoded.length; s++) {
                    encoded[s] = json.portSample(pass.samples().get(s));
                }
                long cpuUsed = threads.getCurrentThreadCpuTime() - cpu0;
                long wallUsed = System.nanoTime() - wall0;
                if (i >= warmupPasses) {
                    cpu += cpuUsed;
                    wall += wallUsed;
                    for (byte[] e : encoded) {
                        bytes += e.length;
                    }
                    records += encoded.length;
                }
                assertRates(pass, i);
            }
            out.printf("collector pass: %d devices x %d ports (mlx5, counters/ + hw_counters/), %d passes after %d warm-up%n",
                    devices, ports, passes, warmupPasses);
            out.printf("  CPU time per pass:   %.3f ms (read + rates + JSON encoding of %d records)%n",
                    cpu / 1e6 / passes, records / passes);
            out.printf("  wall time per pass:  %.3f ms%n", wall / 1e6 / passes);
            out.printf("  CPU share at a 1 s interval: %.3f %% of one core%n", cpu / 1e6 / passes / 10.0);
            out.printf("  bytes per record (JSON, uncompressed): %.0f%n", (double) bytes / records);
            out.flush();
        } finally {
            FileTrees.deleteQuietly(root);
        }
    }

    /** A benchmark whose passes produce no rates would measure the wrong thing. */
    private static void assertRates(SysfsPass pass, int i) {
        if (i > 0) {
            for (PortSample s : pass.samples()) {
                if (s.txBytesPerSec() == null) {
                    throw new IllegalStateException("benchmark pass produced no rate for " + s.key());
                }
            }
        }
    }
}
