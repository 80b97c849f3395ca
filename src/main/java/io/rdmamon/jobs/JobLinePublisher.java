package io.rdmamon.jobs;

import io.rdmamon.support.Excerpt;
import io.rdmamon.model.JobRecord;
import io.rdmamon.model.RecordParser;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Publishes job records from JSON lines: each line is checked against the contract (the same parser the stream app
 * uses), a bad one is reported with its line number and skipped, a good one is sent as it was written (extra fields
 * kept) with key = uid and timestamp = updatedAt. Blank lines and lines starting with '#' are ignored.
 */
final class JobLinePublisher {
    private static final int EXCERPT = 120;

    /** What happened: records sent and acknowledged, lines rejected, sends that failed (with the first error). */
    record Outcome(int published, int rejected, int failed, String firstFailure, Exception firstError) {
    }

    private JobLinePublisher() {
    }

    static Outcome publish(BufferedReader lines, Producer<String, byte[]> producer, String topic, PrintWriter err)
            throws IOException {
        AtomicInteger published = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        AtomicReference<String> firstFailure = new AtomicReference<>();
        AtomicReference<Exception> firstError = new AtomicReference<>();
        int rejected = 0;
        int number = 0;
        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
            number++;
            String text = line.strip();
            if (text.isEmpty() || text.startsWith("#")) {
                continue;
            }
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            RecordParser.Parsed<JobRecord> parsed = RecordParser.JOB.parse(bytes);
            if (!parsed.ok()) {
                rejected++;
                err.println("line " + number + ": " + parsed.error() + ": " + excerpt(text));
                continue;
            }
            JobRecord job = parsed.value();
            producer.send(new ProducerRecord<>(topic, null, job.updatedAt(), job.uid(), bytes), (meta, e) -> {
                if (e == null) {
                    published.incrementAndGet();
                } else {
                    failed.incrementAndGet();
                    if (firstError.compareAndSet(null, e)) {
                        firstFailure.set("job " + job.uid() + ": " + e.getMessage());
                    }
                }
            });
        }
        producer.flush();
        return new Outcome(published.get(), rejected, failed.get(), firstFailure.get(), firstError.get());
    }

    private static String excerpt(String text) {
        return Excerpt.of(text, EXCERPT);
    }
}
