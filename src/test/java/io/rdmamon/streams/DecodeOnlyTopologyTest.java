package io.rdmamon.streams;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.model.Json;
import io.rdmamon.model.JobRecord;
import io.rdmamon.testing.TrainingTraffic;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyDescription;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The floor that {@code rdmamon bench streams --floor} measures: the app's sources and decoding, nothing after. */
class DecodeOnlyTopologyTest {
    static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path stateDir;

    @Test
    void shouldReadAndDecodeEverySampleTopicAndWriteOnlyRejectedRecords() {
        StreamsAppConfig cfg = new StreamsAppConfig(Map.of(StreamsAppConfig.STATE_DIR_CONFIG, stateDir.toString()));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Topology topology = RdmamonTopology.buildDecodeOnly(cfg, registry);
        StreamsAppConfig.TopicNames t = cfg.topics();

        Set<String> sources = new HashSet<>();
        Set<String> sinks = new HashSet<>();
        for (TopologyDescription.Subtopology sub : topology.describe().subtopologies()) {
            for (TopologyDescription.Node node : sub.nodes()) {
                if (node instanceof TopologyDescription.Source source) {
                    sources.addAll(source.topicSet());
                } else if (node instanceof TopologyDescription.Sink sink) {
                    sinks.add(sink.topic());
                } else {
                    assertThat(((TopologyDescription.Processor) node).stores()).isEmpty();
                }
            }
        }
        assertThat(sources).containsExactlyInAnyOrder(t.portSamples(), t.hostSamples(), t.gpuSamples());
        assertThat(sinks).containsExactly(t.deadLetter());

        TrainingTraffic sim = new TrainingTraffic();
        TrainingTraffic.Job job = sim.job("uid-a", List.of("n1"), List.of("erdma_0")).trains(T0, Long.MAX_VALUE);
        sim.record(job, JobRecord.RUNNING, T0);
        List<TrainingTraffic.Event> events = sim.run(T0, T0 + 10_000);
        try (TopologyTestDriver driver = new TopologyTestDriver(topology, RdmamonTopology.streamsConfig(cfg))) {
            TestInputTopic<String, byte[]> ports = driver.createInputTopic(t.portSamples(), new StringSerializer(),
                    new ByteArraySerializer());
            TestInputTopic<String, byte[]> hosts = driver.createInputTopic(t.hostSamples(), new StringSerializer(),
                    new ByteArraySerializer());
            TestOutputTopic<String, byte[]> deadLetters = driver.createOutputTopic(t.deadLetter(),
                    new StringDeserializer(), new ByteArrayDeserializer());
            int samples = 0;
            for (TrainingTraffic.Event e : events) {
                if (e.port() != null) {
                    ports.pipeInput(e.port().key(), Json.toBytes(e.port()), e.ts());
                    samples++;
                } else if (e.host() != null) {
                    hosts.pipeInput(e.host().key(), Json.toBytes(e.host()), e.ts());
                    samples++;
                }
            }
            ports.pipeInput("n1/erdma_0/1", "not json {".getBytes(StandardCharsets.UTF_8), T0 + 10_000);
            hosts.pipeInput("n1/eth0", "[1,2,3]".getBytes(StandardCharsets.UTF_8), T0 + 10_000);

            assertThat(samples).isGreaterThanOrEqualTo(10);
            assertThat(deadLetters.readKeyValuesToList()).extracting(kv -> kv.key)
                    .containsExactly("n1/erdma_0/1", "n1/eth0");
        }
    }
}
