package io.rdmamon.replay;


import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Where {@code rdmamon replay} puts outputs: alert values as JSON lines on stdout, and with an output folder also
 * {@value #ALERTS}, {@value #JOB_BANDWIDTH}, {@value #LINK_HEALTH} and {@value #DEAD_LETTER}: record values exactly
 * as on the topics, one per line.
 */
public final class ReplayFiles implements Consumer<Replayer.Output>, Closeable {
    public static final String ALERTS = "alerts.jsonl";
    public static final String JOB_BANDWIDTH = "job-bandwidth.jsonl";
    public static final String LINK_HEALTH = "link-health.jsonl";
    public static final String DEAD_LETTER = "dead-letter.jsonl";

    private final PrintWriter stdout;
    private final Map<String, BufferedWriter> files = new LinkedHashMap<>();
    private final Map<String, String> topicOf;

    public ReplayFiles(PrintWriter stdout, Path outDir, ReplayTopics topics) throws IOException {
        this.stdout = stdout;
        this.topicOf = Map.of(topics.alerts(), ALERTS, topics.jobBandwidth(), JOB_BANDWIDTH, topics.linkHealth(),
                LINK_HEALTH, topics.deadLetter(), DEAD_LETTER);
        if (outDir != null) {
            Files.createDirectories(outDir);
            for (String name : new String[] {ALERTS, JOB_BANDWIDTH, LINK_HEALTH, DEAD_LETTER}) {
                files.put(name, Files.newBufferedWriter(outDir.resolve(name), StandardCharsets.UTF_8));
            }
        }
    }

    @Override
    public void accept(Replayer.Output output) {
        String file = topicOf.get(output.topic());
        if (ALERTS.equals(file)) {
            stdout.println(output.value());
        }
        BufferedWriter writer = file == null ? null : files.get(file);
        if (writer == null) {
            return;
        }
        try {
            writer.write(output.value());
            writer.write('\n');
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    @Override
    public void close() throws IOException {
        stdout.flush();
        for (BufferedWriter writer : files.values()) {
            writer.close();
        }
    }
}
