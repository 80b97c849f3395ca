package io.rdmamon.demo;

import io.rdmamon.docs.ReadmeDemoOutput;
import io.rdmamon.model.Alert;
import io.rdmamon.model.JobBandwidth;
import io.rdmamon.model.JobRecord;
import io.rdmamon.model.Json;
import io.rdmamon.model.PortSample;
import io.rdmamon.model.Topics;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's demo output is what the demo prints, as far as it does not move: the title, both tables' headers (with
 * the width the longest node name gives them), one row per port of the simulated cluster and per job, and alerts of
 * known types. Runs in a second with no broker: the view is fed the cluster's ports and jobs as records and rendered.
 * {@code DemoCommandTest} compares the same parts with a real run's last screen.
 */
class ReadmeDemoOutputTest {

    @Test
    void shouldShowTheDemosTitleHeadersPortsAndJobsInTheReadme(@TempDir Path dir) throws Exception {
        ReadmeDemoOutput readme = ReadmeDemoOutput.fromReadme();
        ReadmeDemoOutput rendered = ReadmeDemoOutput.parse(render(dir));

        assertThat(readme.titleWithoutBroker()).as("README: the title line of ./rdmamon demo (default fault times)")
                .isEqualTo(rendered.titleWithoutBroker());
        assertThat(readme.portHeader()).as("README: the ports table's header").isEqualTo(rendered.portHeader());
        assertThat(readme.ports()).as("README: one row per port of the demo's nodes and pods")
                .containsExactlyInAnyOrderElementsOf(rendered.ports());
        assertThat(readme.jobHeader()).as("README: the jobs table's header").isEqualTo(rendered.jobHeader());
        assertThat(readme.jobs()).as("README: one row per job of the demo").containsExactlyInAnyOrderElementsOf(rendered.jobs());
        assertThat(readme.alerts()).as("README: the alerts the demo's faults raise").isNotEmpty().allSatisfy(alert ->
                assertThat(alert.split(" ")[1]).isIn(alertTypes()));
    }

    /** The view of the demo's cluster: every node's ports and every job once, the title as the demo makes it. */
    static String render(Path dir) throws Exception {
        SimulatedCluster cluster = new SimulatedCluster(dir, 1_767_225_600_000L, 90_000L, 150_000L);
        StringWriter out = new StringWriter();
        LiveView view = new LiveView("127.0.0.1:9", new PrintWriter(out), false,
                DemoCommand.title("127.0.0.1:9", Duration.ofSeconds(90), Duration.ofSeconds(150)));
        long offset = 0;
        for (SimulatedCluster.Node node : cluster.nodes()) {
            for (String device : node.devices()) {
                PortSample s = new PortSample(1, node.name(), device, 1, 1_767_225_600_000L, 1000, "sysfs", "ACTIVE",
                        "LinkUp", "Ethernet", 25_000_000_000L, 1e9, 1e9, 1e5, 1e5, Map.of(), Map.of());
                view.take(new ConsumerRecord<>(Topics.PORT_SAMPLES, 0, offset++, s.key(),
                        Json.MAPPER.writeValueAsBytes(s)));
            }
        }
        for (JobRecord job : cluster.jobs()) {
            JobBandwidth b = new JobBandwidth(1, job.uid(), job.job(), job.namespace(), 0, 10_000, 1e9, 1e9, 2, 2,
                    null, null, null, false, List.of(), 1e8, 0.9, null, null);
            view.take(new ConsumerRecord<>(Topics.JOB_BANDWIDTH, 0, offset++, job.uid(),
                    Json.MAPPER.writeValueAsBytes(b)));
        }
        return view.render();
    }

    static Set<String> alertTypes() {
        Set<String> types = new LinkedHashSet<>();
        Arrays.stream(Alert.class.getFields()).filter(f -> Modifier.isStatic(f.getModifiers()))
                .filter(f -> f.getType() == String.class && f.getName().equals(f.getName().toUpperCase()))
                .forEach(f -> {
                    try {
                        types.add((String) f.get(null));
                    } catch (IllegalAccessException e) {
                        throw new AssertionError(e);
                    }
                });
        return types;
    }
}
