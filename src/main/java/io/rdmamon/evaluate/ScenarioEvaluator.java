package io.rdmamon.evaluate;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.model.Alert;
import io.rdmamon.model.Json;
import io.rdmamon.replay.InputKind;
import io.rdmamon.replay.ReplayTopics;
import io.rdmamon.replay.Replayer;
import io.rdmamon.replay.StreamsReplay;
import io.rdmamon.scenario.GroundTruth;
import io.rdmamon.scenario.ScenarioFiles;
import io.rdmamon.streams.StreamsAppConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Replays every scenario folder under a root (as written by {@code rdmamon simulate --scenario all}) through a fresh
 * topology each and scores its alerts against the scenario's ground truth. Scenarios are independent (own driver,
 * own state), so several are replayed at once; the report lists them in the order given.
 */
public final class ScenarioEvaluator {
    private static final Logger log = LoggerFactory.getLogger(ScenarioEvaluator.class);

    private final Supplier<Replayer> replayers;
    private final ReplayTopics topics;
    private final IncidentMatcher matcher;
    private final int threads;
    /** Whether a scenario's gpu-samples.jsonl is replayed (off: as a cluster without the GPU source). */
    private final boolean gpuSamples;

    /**
     * @param replayers a new replayer (fresh topology and state) per scenario; called from several threads
     * @param threads   how many scenarios to replay at once
     */
    public ScenarioEvaluator(Supplier<Replayer> replayers, ReplayTopics topics, IncidentMatcher matcher,
                             int threads) {
        this(replayers, topics, matcher, threads, true);
    }

    private ScenarioEvaluator(Supplier<Replayer> replayers, ReplayTopics topics, IncidentMatcher matcher,
                              int threads, boolean gpuSamples) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be >= 1, got " + threads);
        }
        this.replayers = replayers;
        this.topics = topics;
        this.matcher = matcher;
        this.threads = threads;
        this.gpuSamples = gpuSamples;
    }

    /** The same evaluator replaying no GPU samples: what the traces say without the GPU source. */
    public ScenarioEvaluator withoutGpuSamples() {
        return new ScenarioEvaluator(replayers, topics, matcher, threads, false);
    }

    /** The scenario folders directly under {@code root}, by name; {@code root} itself if it is one. */
    /** Replays through the stream app's topology with {@code config}, in arrival order, {@code threads} at once. */
    public static ScenarioEvaluator of(StreamsAppConfig config, long slackMs, int threads) {
        return new ScenarioEvaluator(
                () -> StreamsReplay.replayer(config, Replayer.Order.ARRIVAL, new SimpleMeterRegistry()),
                StreamsReplay.topics(config), new IncidentMatcher(slackMs), threads);
    }

    public static List<Path> scenarioDirs(Path root) throws IOException {
        if (ScenarioFiles.isScenario(root)) {
            return List.of(root);
        }
        if (!Files.isDirectory(root)) {
            throw new IllegalArgumentException(root + " is not a folder");
        }
        try (Stream<Path> children = Files.list(root)) {
            return children.filter(ScenarioFiles::isScenario).sorted().toList();
        }
    }

    public EvaluationReport evaluate(List<Path> scenarioDirs) throws IOException {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<ScenarioScore>> futures = new ArrayList<>();
            for (Path dir : scenarioDirs) {
                futures.add(pool.submit(() -> score(dir)));
            }
            List<ScenarioScore> scores = new ArrayList<>();
            for (Future<ScenarioScore> future : futures) {
                scores.add(future.get());
            }
            return EvaluationReport.of(scores, matcher.slackMs());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while evaluating", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw new IllegalStateException("a scenario replay failed: " + e.getCause().getMessage(), e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }

    /** The score of one scenario folder, named after the folder. */
    public ScenarioScore score(Path dir) throws IOException {
        GroundTruth truth = ScenarioFiles.readTruth(dir);
        List<Alert> alerts = replay(dir);
        return Scoring.score(truth, alerts, matcher).named(dir.getFileName().toString());
    }

    /** The alerts the topology writes for one scenario folder. */
    public List<Alert> replay(Path dir) throws IOException {
        List<Replayer.Input> inputs = new ArrayList<>();
        inputs.add(new Replayer.Input(InputKind.JOBS, dir.resolve(ScenarioFiles.JOBS)));
        inputs.add(new Replayer.Input(InputKind.PORT_SAMPLES, dir.resolve(ScenarioFiles.SAMPLES)));
        if (Files.isRegularFile(dir.resolve(ScenarioFiles.HOST_SAMPLES))) {
            inputs.add(new Replayer.Input(InputKind.HOST_SAMPLES, dir.resolve(ScenarioFiles.HOST_SAMPLES)));
        }
        if (gpuSamples && Files.isRegularFile(dir.resolve(ScenarioFiles.GPU_SAMPLES))) {
            inputs.add(new Replayer.Input(InputKind.GPU_SAMPLES, dir.resolve(ScenarioFiles.GPU_SAMPLES)));
        }
        List<Alert> alerts = new ArrayList<>();
        replayers.get().run(inputs, output -> {
            if (!output.topic().equals(topics.alerts())) {
                return;
            }
            try {
                alerts.add(Json.MAPPER.readValue(output.value(), Alert.class));
            } catch (IOException e) {
                log.warn("{}: an alert that is not a valid Alert record is ignored: {}", dir, output.value());
            }
        });
        return alerts;
    }
}
