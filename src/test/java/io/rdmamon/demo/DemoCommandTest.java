package io.rdmamon.demo;

import io.rdmamon.cli.Main;
import io.rdmamon.docs.ReadmeDemoOutput;
import io.rdmamon.influx.InfluxQl;
import io.rdmamon.influx.InfluxdProcess;
import io.rdmamon.testing.LocalInfluxd;
import org.influxdb.InfluxDB;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** The README's main command, end to end: broker, simulated nodes, real collectors, the view read from the topics. */
class DemoCommandTest {
    @Test
    void shouldShowTrafficJobBandwidthAndTheInjectedFaultWhenTheDemoRuns(@TempDir Path dir) {
        StringWriter out = new StringWriter();
        CommandLine cmd = Main.commandLine();
        cmd.setOut(new PrintWriter(out, true));
        InfluxdProcess influxd = LocalInfluxd.shared();
        // the link degrades soon after training starts (20 s in), so the stream app flags it within the run
        int rc = cmd.execute("demo", "--duration", "45s", "--plain", "--work-dir", dir.toString(),
                "--influx-url", influxd.url(), "--degrade-at", "22s");
        assertThat(rc).isZero();
        String screen = lastScreen(out.toString());
        for (String port : new String[]{"gpu-node-1 mlx5_0/1", "gpu-node-4 mlx5_1/1", "gpu-node-5 erdma_0/1",
                "gpu-node-6 erdma_0/1", "acs.llm-gu8tf-master-0 mlx5_0/1", "acs.llm-gu8tf-worker-0 mlx5_1/1"}) {
            // training starts 20 s in: by the end every port moves tens of Gb/s (the ACS GU8TF pods' too, named
            // after their pods by their in-pod collectors)
            Matcher m = Pattern.compile(Pattern.quote(port).replace(" ", "\\E\\s+\\Q")
                    + "\\s+\\S+\\s+ACTIVE\\s+([0-9.]+)\\s+([0-9.]+)")
                    .matcher(screen);
            assertThat(m.find()).as(port + " in\n" + screen).isTrue();
            assertThat(Double.parseDouble(m.group(1))).as(port + " tx Gb/s").isGreaterThan(5.0);
        }
        // the stream app ran: job bandwidth and the degraded link's alert came back through the topics
        assertThat(screen).containsPattern("ml-research/llama-pretrain\\s+[0-9.]+\\s+[0-9.]+\\s+4/4");
        assertThat(screen).containsPattern("firing\\s+LINK_DEGRADED\\s+link degraded: gpu-node-2/mlx5_0/1");
        // the job on TCP: no RDMA, its nodes' eth0 busy, an RDMA share of 0 (its alert needs more than this run)
        assertThat(screen).containsPattern("ml-research/resnet-train\\s+0\\.00\\s+0\\.00\\s+2/2\\s+[1-9][0-9.]*\\s+0%");
        // the ACS jobs: GU8TF over RDMA; P16EN over sockets as intended, its eth0 counted as its bandwidth
        assertThat(screen).containsPattern("acs/llm-gu8tf\\s+[1-9][0-9.]*\\s+[1-9][0-9.]*\\s+2/2");
        assertThat(screen).containsPattern("acs/sft-p16en\\s+[1-9][0-9.]*\\s+[1-9][0-9.]*\\s+2/2");
        assertThat(screen).doesNotContainPattern("TCP_FALLBACK\\s+.*sft-p16en");
        // the README shows what the demo prints: the same title, headers, port rows and jobs (not the live numbers)
        ReadmeDemoOutput readme = ReadmeDemoOutput.fromReadme();
        ReadmeDemoOutput printed = ReadmeDemoOutput.parse(screen);
        assertThat(printed.titleWithoutBroker()).as("README's demo title")
                .isEqualTo(readme.titleWithoutBroker().replace("+90s", "+22s"));
        assertThat(printed.portHeader()).as("README's port header").isEqualTo(readme.portHeader());
        assertThat(printed.ports()).as("README's port rows").containsExactlyInAnyOrderElementsOf(readme.ports());
        assertThat(printed.jobHeader()).as("README's job header").isEqualTo(readme.jobHeader());
        assertThat(printed.jobs()).as("README's jobs").containsExactlyInAnyOrderElementsOf(readme.jobs());
        // the sink ran too: the ten ports' samples are in InfluxDB (database created by the demo's influx init)
        try (InfluxDB influx = LocalInfluxd.client(influxd)) {
            assertThat(LocalInfluxd.count(influx, "rdmamon", "rp_raw", "rdma_port", "tx_bytes_per_sec"))
                    .isGreaterThan(100);
            // "did RDMA help?": each job's expected figure per NIC, by instance type (eRDMA nodes) or device type
            Map<String, Object> expected = new HashMap<>();
            InfluxQl.query(influx, "rdmamon", "SELECT last(\"expected_nic_bytes_per_sec\") FROM \"rp_raw\"."
                    + "\"job_bandwidth\" GROUP BY \"job\"").getResults().get(0).getSeries()
                    .forEach(series -> expected.put(series.getTags().get("job"), series.getValues().get(0).get(1)));
            assertThat(expected).containsEntry("llama-pretrain", 20e9).containsEntry("bert-finetune", 10e9);
        }
    }

    private static String lastScreen(String all) {
        int at = all.lastIndexOf("rdmamon demo:");
        return at < 0 ? all : all.substring(at);
    }
}
