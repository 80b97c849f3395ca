package io.rdmamon.replay;

import io.rdmamon.support.Excerpt;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.model.Json;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedReader;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Reads one JSON-lines file of records for one input topic, lazily, in file order. Blank lines are ignored. A line
 * that is not a JSON object or has no integer timestamp field cannot be placed in event time: it is logged with
 * {@code file:line} and its text, counted ({@code rdmamon.replay.bad.lines}) and skipped. Every other line is passed
 * on as it is, so the topology's own validation (dead letter) judges it exactly as on the topic.
 */
final class JsonLinesSource implements Closeable {
    private static final Logger log = LoggerFactory.getLogger(JsonLinesSource.class);
    private static final int MAX_TEXT_LOGGED = 200;

    private final Path file;
    private final InputKind kind;
    private final int index;
    private final BufferedReader reader;
    private final Counter badLines;
    private long lineNumber;
    private ReplayRecord next;

    JsonLinesSource(Path file, InputKind kind, int index, MeterRegistry registry) throws IOException {
        this.file = file;
        this.kind = kind;
        this.index = index;
        this.reader = Files.newBufferedReader(file, StandardCharsets.UTF_8);
        this.badLines = Counter.builder("rdmamon.replay.bad.lines")
                .description("input lines skipped because they are not JSON objects with a timestamp")
                .tag("input", kind.name().toLowerCase(Locale.ROOT)).tag("file", file.toString())
                .register(registry);
        advance();
    }

    /** The next record without consuming it, or null at the end of the file. */
    ReplayRecord peek() {
        return next;
    }

    ReplayRecord take() {
        ReplayRecord taken = next;
        advance();
        return taken;
    }

    private void advance() {
        next = null;
        try {
            String line;
            while (next == null && (line = reader.readLine()) != null) {
                lineNumber++;
                if (!line.isBlank()) {
                    next = parse(line);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + " at line " + (lineNumber + 1), e);
        }
    }

    private ReplayRecord parse(String line) {
        String origin = file + ":" + lineNumber;
        JsonNode node;
        try {
            node = Json.MAPPER.readTree(line);
        } catch (JsonProcessingException e) {
            return skip(origin, "not JSON (" + e.getOriginalMessage() + ")", line);
        }
        if (node == null || !node.isObject()) {
            return skip(origin, "not a JSON object", line);
        }
        Long timestamp = kind.timestamp(node);
        if (timestamp == null) {
            return skip(origin, "no integer '" + kind.timestampField() + "' field", line);
        }
        return new ReplayRecord(kind, kind.key(node), line, timestamp, origin, index, lineNumber);
    }

    private ReplayRecord skip(String origin, String reason, String line) {
        badLines.increment();
        log.warn("{}: skipped, {}: {}", origin, reason, Excerpt.of(line, MAX_TEXT_LOGGED));
        return null;
    }

    long skipped() {
        return (long) badLines.count();
    }

    @Override
    public void close() throws IOException {
        reader.close();
    }
}
