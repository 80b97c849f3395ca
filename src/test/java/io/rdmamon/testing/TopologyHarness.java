package io.rdmamon.testing;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.model.Alert;
import io.rdmamon.model.HostIfaceSample;
import io.rdmamon.model.Json;
import io.rdmamon.model.JobBandwidth;
import io.rdmamon.model.JsonSerde;
import io.rdmamon.model.LinkHealth;
import io.rdmamon.model.NodeRecord;
import io.rdmamon.model.PortSample;
import io.rdmamon.streams.RdmamonTopology;
import io.rdmamon.streams.StreamsAppConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntToLongFunction;

/**
 * Runs {@link RdmamonTopology} in a {@link TopologyTestDriver} the way a replay does: records in event-time order,
 * the wall clock advanced in step with event time (1 s steps) so the collector-silence punctuator sees what it would
 * see live. Collects every output.
 */
public final class TopologyHarness implements AutoCloseable {
    public final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    public final StreamsAppConfig cfg;
    private final TopologyTestDriver driver;
    private final TestInputTopic<String, byte[]> portSamples;
    private final TestInputTopic<String, byte[]> hostSamples;
    private final TestInputTopic<String, byte[]> gpuSamples;
    private final TestInputTopic<String, byte[]> jobs;
    /** Null when the nodes topic is not read. */
    private final TestInputTopic<String, byte[]> nodes;
    private final TestOutputTopic<String, Alert> alertsOut;
    private final TestOutputTopic<String, JobBandwidth> bandwidthOut;
    private final TestOutputTopic<String, LinkHealth> linkHealthOut;
    private final TestOutputTopic<String, byte[]> deadLetterOut;
    public final List<Alert> alerts = new ArrayList<>();
    public final List<JobBandwidth> bandwidth = new ArrayList<>();
    public final List<LinkHealth> linkHealth = new ArrayList<>();
    public final List<TestRecord<String, byte[]>> deadLetters = new ArrayList<>();
    private long wallClock;

    public TopologyHarness(Path stateDir, long start, Map<String, ?> overrides) {
        Map<String, Object> settings = new HashMap<>(overrides);
        settings.put(StreamsAppConfig.STATE_DIR_CONFIG, stateDir.toString());
        settings.putIfAbsent(StreamsAppConfig.STATE_STORE_TYPE_CONFIG, "in_memory");
        cfg = new StreamsAppConfig(settings);
        driver = new TopologyTestDriver(RdmamonTopology.build(cfg, registry), RdmamonTopology.streamsConfig(cfg),
                Instant.ofEpochMilli(start));
        wallClock = start;
        StreamsAppConfig.TopicNames t = cfg.topics();
        portSamples = driver.createInputTopic(t.portSamples(), new StringSerializer(), new ByteArraySerializer());
        hostSamples = driver.createInputTopic(t.hostSamples(), new StringSerializer(), new ByteArraySerializer());
        gpuSamples = driver.createInputTopic(t.gpuSamples(), new StringSerializer(), new ByteArraySerializer());
        jobs = driver.createInputTopic(t.jobs(), new StringSerializer(), new ByteArraySerializer());
        nodes = t.nodes() == null ? null
                : driver.createInputTopic(t.nodes(), new StringSerializer(), new ByteArraySerializer());
        alertsOut = driver.createOutputTopic(t.alerts(), new StringDeserializer(),
                JsonSerde.of(Alert.class).deserializer());
        bandwidthOut = driver.createOutputTopic(t.jobBandwidth(), new StringDeserializer(),
                JsonSerde.of(JobBandwidth.class).deserializer());
        linkHealthOut = driver.createOutputTopic(t.linkHealth(), new StringDeserializer(),
                JsonSerde.of(LinkHealth.class).deserializer());
        deadLetterOut = driver.createOutputTopic(t.deadLetter(), new StringDeserializer(),
                new org.apache.kafka.common.serialization.ByteArrayDeserializer());
    }

    public TopologyHarness feed(List<TrainingTraffic.Event> events) {
        return feed(events, 0);
    }

    /** As {@link #feed(List)}, each record processed {@code lateByMs} after its timestamp (a backlog). */
    public TopologyHarness feed(List<TrainingTraffic.Event> events, long lateByMs) {
        return feed(events, lateByMs, i -> events.get(i).ts());
    }

    /**
     * As {@link #feed(List, long)}, the {@code i}-th record with the record timestamp {@code recordTimestamp(i)}
     * instead of its own time (a producer that stamps the time of sending, a LogAppendTime topic).
     */
    public TopologyHarness feed(List<TrainingTraffic.Event> events, long lateByMs, IntToLongFunction recordTimestamp) {
        for (int i = 0; i < events.size(); i++) {
            TrainingTraffic.Event e = events.get(i);
            advanceTo(e.ts() + lateByMs);
            pipe(e.port(), e.host(), e, recordTimestamp.applyAsLong(i));
        }
        drain();
        return this;
    }

    /**
     * As {@link #feed(List)} with the wall clock at the true time, but each node's samples stamped by its own clock,
     * off by {@code clockOffsets} (ms, by node; the record timestamp too, as a collector stamps it).
     */
    public TopologyHarness feedWithClocks(List<TrainingTraffic.Event> events, Map<String, Long> clockOffsets) {
        for (TrainingTraffic.Event e : events) {
            advanceTo(e.ts());
            String node = e.port() != null ? e.port().node() : e.host() != null ? e.host().node() : null;
            long offset = node == null ? 0 : clockOffsets.getOrDefault(node, 0L);
            pipe(e.port() == null ? null : e.port().withTs(e.port().ts() + offset),
                    e.host() == null ? null : e.host().withTs(e.host().ts() + offset), e, e.ts() + offset);
        }
        drain();
        return this;
    }

    private void pipe(PortSample port, HostIfaceSample host, TrainingTraffic.Event e, long timestamp) {
        if (port != null) {
            portSamples.pipeInput(port.key(), Json.toBytes(port), timestamp);
        } else if (host != null) {
            hostSamples.pipeInput(host.key(), Json.toBytes(host), timestamp);
        } else if (e.gpu() != null) {
            gpuSamples.pipeInput(e.gpu().key(), Json.toBytes(e.gpu()), timestamp);
        } else {
            jobs.pipeInput(e.job().uid(), Json.toBytes(e.job()), timestamp);
        }
    }

    /** Raw bytes onto an input topic: for poison records. */
    public TopologyHarness raw(String topic, String key, String value, long ts) {
        TestInputTopic<String, byte[]> in = topic.equals(cfg.topics().jobs()) ? jobs
                : topic.equals(cfg.topics().nodes()) ? nodes
                : topic.equals(cfg.topics().hostSamples()) ? hostSamples
                : topic.equals(cfg.topics().gpuSamples()) ? gpuSamples : portSamples;
        in.pipeInput(key, value == null ? null : value.getBytes(StandardCharsets.UTF_8), ts);
        drain();
        return this;
    }

    /** A node record ({@code jobs watch}'s Present or Deleted) onto the nodes topic, stamped with its time. */
    public TopologyHarness node(NodeRecord record) {
        nodes.pipeInput(record.node(), Json.toBytes(record), record.at());
        drain();
        return this;
    }

    /** Moves the wall clock forward to {@code ts} in 1 s steps, running wall-clock punctuators on the way. */
    public TopologyHarness advanceTo(long ts) {
        while (wallClock + 1_000 <= ts) {
            driver.advanceWallClockTime(Duration.ofMillis(1_000));
            wallClock += 1_000;
        }
        return this;
    }

    private void drain() {
        alerts.addAll(alertsOut.readValuesToList());
        bandwidth.addAll(bandwidthOut.readValuesToList());
        linkHealth.addAll(linkHealthOut.readValuesToList());
        deadLetters.addAll(deadLetterOut.readRecordsToList());
    }

    public List<Alert> alerts(String type) {
        drain();
        return alerts.stream().filter(a -> a.type().equals(type)).toList();
    }

    public List<Alert> firing(String type) {
        return alerts(type).stream().filter(a -> a.status().equals(Alert.FIRING)).toList();
    }

    /**
     * What the app wrote so far to one of its internal topics ({@code <application.id>-<name>}: a repartition topic,
     * or a store's {@code <store>-changelog}), raw.
     */
    public List<TestRecord<String, byte[]>> internalTopic(String name) {
        return driver.createOutputTopic(cfg.applicationId() + "-" + name, new StringDeserializer(),
                new ByteArrayDeserializer()).readRecordsToList();
    }

    public double counter(String name) {
        return registry.find(name).counters().stream().mapToDouble(c -> c.count()).sum();
    }

    @Override
    public void close() {
        driver.close();
    }
}
