package io.rdmamon.collector;

import io.rdmamon.collector.eadm.EadmSimScript;
import io.rdmamon.collector.podresources.FakeKubelet;
import io.rdmamon.sim.SysfsTreeWriter;
import io.rdmamon.sim.SysfsTreeWriter.DeviceKind;
import io.rdmamon.testing.SharedKafka;
import io.rdmamon.testing.TmpfsTempDir;
import io.rdmamon.testing.TopicContent;
import io.rdmamon.support.Processes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.rdmamon.collector.podresources.FakeKubelet.held;
import static io.rdmamon.collector.podresources.FakeKubelet.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The collector's own class path (target/collector-lib, what its image ships) and JVM options (collector/jvm.options)
 * run the whole node agent: sysfs, a supervised eadm, the kubelet's pod-resources API over gRPC, the Kafka producer
 * with its compression codec and JNA for NVML, in a JVM of its own. A jar left out of the list in the pom fails this test.
 */
class CollectorClassPathTest {
    @TempDir(factory = TmpfsTempDir.class)
    Path dir;

    @Test
    void shouldPublishPortSamplesAndPodDevicesWhenRunOnItsOwnClassPath() throws Exception {
        String bootstrap = SharedKafka.bootstrapServers();
        String ports = SharedKafka.uniqueTopic("classpath-ports");
        String pods = SharedKafka.uniqueTopic("classpath-pods");
        SharedKafka.createTopics(bootstrap, 1, ports, pods);
        SysfsTreeWriter tree = new SysfsTreeWriter(dir.resolve("sys"));
        tree.addDevice("mlx5_0", DeviceKind.MLX5, 1, SysfsTreeWriter.ETHERNET);
        tree.addDevice("erdma_0", DeviceKind.ERDMA_UPSTREAM, 1, SysfsTreeWriter.ETHERNET);
        Path eadm = EadmSimScript.install(dir.resolve("eadm"));
        Path log = dir.resolve("collector.log");
        try (FakeKubelet kubelet = new FakeKubelet(dir.resolve("kubelet.sock")).start()) {
            kubelet.answer(pod("train", "bert-0", held("aliyun/erdma", "erdma_0/1")));
            List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                    .toString()));
            command.addAll(CollectorJvmOptions.load());
            command.addAll(List.of("-cp", collectorClassPath(), CollectorMain.class.getName(),
                    "--sysfs", tree.root().toString(), "--interval", "200ms", "--node", "node-a",
                    "--bootstrap-servers", bootstrap, "--metrics-port", "-1",
                    "--set", CollectorConfig.PORT_SAMPLES_TOPIC_CONFIG + "=" + ports,
                    "--set", io.rdmamon.collector.podresources.PodResourcesConfig.TOPIC_CONFIG + "=" + pods,
                    "--set", io.rdmamon.collector.podresources.PodResourcesConfig.SOCKET_CONFIG + "=" + dir.resolve("kubelet.sock"),
                    "--set", "collector.buffer.spill.path=" + dir.resolve("spill"),
                    "--set", "eadm.command=" + EadmSimScript.command(eadm, tree.root()),
                    // NVML through JNA: JNA must be on the class path to say that this library is not there
                    "--set", "collector.gpu.nvml.library=libnvidia-ml-absent.so.1"));
            Process collector = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile())
                    .start();
            try {
                await().atMost(Duration.ofSeconds(60)).until(() -> !collector.isAlive()
                        || keys(bootstrap, ports).containsAll(List.of("node-a/mlx5_0/1", "node-a/erdma_0/1"))
                        && !TopicContent.readAll(bootstrap, pods).isEmpty());
            } finally {
                Processes.stop(collector, Duration.ofSeconds(20));
            }
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        assertThat(output).doesNotContain("NoClassDefFoundError", "ClassNotFoundException")
                .contains("eadm erdma_0: supervising")
                .contains("Unable to load library 'libnvidia-ml-absent.so.1'");
        assertThat(keys(bootstrap, ports)).as(output).contains("node-a/mlx5_0/1", "node-a/erdma_0/1");
        assertThat(new String(TopicContent.readAll(bootstrap, pods).get(0).value(), StandardCharsets.UTF_8))
                .contains("bert-0", "erdma_0");
    }

    private static List<String> keys(String bootstrap, String topic) {
        return TopicContent.readAll(bootstrap, topic).stream().map(r -> r.key()).distinct().toList();
    }

    /** target/classes and target/collector-lib/*, which the build fills before the tests run. */
    private static String collectorClassPath() throws Exception {
        Path classes = Path.of(CollectorMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path lib = classes.resolveSibling("collector-lib");
        assertThat(lib).as("the build's collector class path").isDirectory();
        return classes + File.pathSeparator + lib.resolve("*");
    }
}
