package io.rdmamon.replay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.model.Json;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Publishes recorded samples and job records (a {@code rdmamon simulate} folder, or topic dumps) to Kafka as their
 * producers would have: same keys, record timestamps from {@code ts} / {@code updatedAt}, in the replay's arrival
 * order (job records first on equal timestamps). Optionally shifts every time field, so that a recording made for
 * 2026-01-01 lands inside a live system's retention and windows.
 */
public final class RecordingPublisher {
    /**
     * The epoch-millisecond fields of the input records (PortSample, HostIfaceSample, GpuSample, JobRecord) that a
     * shift moves.
     */
    static final Set<String> TIME_FIELDS = Set.of("ts", "updatedAt", "startedAt");

    private RecordingPublisher() {
    }

    /** What was sent: records per topic, first and last (shifted) timestamps. */
    public record Summary(long records, long firstTimestamp, long lastTimestamp) {
    }

    /**
     * Sends every record of {@code inputs}, each time field moved by {@code shiftMs}; flushes before returning.
     * Send failures surface as exceptions from the flush or the returned futures' callbacks (the producer's own).
     */
    public static Summary publish(List<Replayer.Input> inputs, ReplayTopics topics, long shiftMs,
                                  Producer<String, String> producer) throws IOException {
        List<JsonLinesSource> sources = new ArrayList<>();
        try {
            for (int i = 0; i < inputs.size(); i++) {
                sources.add(new JsonLinesSource(inputs.get(i).file(), inputs.get(i).kind(), i,
                        new SimpleMeterRegistry()));
            }
            RecordStream stream = RecordStream.merged(sources);
            long count = 0;
            long first = Long.MAX_VALUE;
            long last = Long.MIN_VALUE;
            List<Exception> failures = new ArrayList<>();
            for (ReplayRecord r = stream.next(); r != null; r = stream.next()) {
                long ts = r.timestamp() + shiftMs;
                String value = shiftMs == 0 ? r.value() : shifted(r.value(), shiftMs);
                producer.send(new ProducerRecord<>(topics.input(r.kind()), null, ts, r.key(), value),
                        (metadata, e) -> {
                            if (e != null) {
                                synchronized (failures) {
                                    failures.add(e);
                                }
                            }
                        });
                count++;
                first = Math.min(first, ts);
                last = Math.max(last, ts);
            }
            producer.flush();
            synchronized (failures) {
                if (!failures.isEmpty()) {
                    throw new IllegalStateException(failures.size() + " record(s) not sent: "
                            + failures.get(0).getMessage(), failures.get(0));
                }
            }
            return count == 0 ? new Summary(0, 0, 0) : new Summary(count, first, last);
        } finally {
            for (JsonLinesSource source : sources) {
                source.close();
            }
        }
    }

    static String shifted(String json, long shiftMs) throws IOException {
        JsonNode node = Json.MAPPER.readTree(json);
        ObjectNode object = (ObjectNode) node;
        for (String field : TIME_FIELDS) {
            JsonNode value = object.get(field);
            if (value != null && value.isIntegralNumber()) {
                object.put(field, value.asLong() + shiftMs);
            }
        }
        return Json.MAPPER.writeValueAsString(object);
    }
}
