package io.rdmamon.collector.gpu;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.model.GpuSample;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Real child processes: stand-in nvidia-smi scripts that print recorded output, crash, hang, or find no driver. */
class GpuSourceTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String GPU_0 = "GPU-fa2badef-49a9-1483-88ed-34afc018aeb1";
    private static final String GPU_1 = "GPU-74f94dfb-ad46-d469-fbb0-c0b2e470c1d7";

    @TempDir
    Path dir;
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<GpuSource> sources = new ArrayList<>();
    private final List<Runnable> cleanups = new ArrayList<>();

    @AfterEach
    void tearDown() {
        sources.forEach(GpuSource::close);
        cleanups.forEach(Runnable::run);
    }

    private GpuSource source(Map<String, Object> settings, boolean countProcesses) {
        GpuSource s = new GpuSource(new GpuConfig(settings), "gpu-node-1", 1_000, countProcesses, registry);
        sources.add(s);
        return s;
    }

    private double count(String metric, String... tags) {
        Counter c = registry.find(metric).tags(tags).counter();
        return c == null ? 0 : c.count();
    }

    private ListAppender<ILoggingEvent> capture(Class<?> type) {
        Logger logger = (Logger) LoggerFactory.getLogger(type);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        cleanups.add(() -> logger.detachAppender(appender));
        return appender;
    }

    @Test
    void shouldPublishTheActivityOfTheGpuProcessesFromProc() throws Exception {
        // GPU 0 runs this JVM (a process whose /proc entry exists), GPU 1 nothing
        Path apps = dir.resolve("apps.csv");
        Files.writeString(apps, GPU_0 + ", " + ProcessHandle.current().pid() + "\n");
        FakeNvidiaSmi fake = new FakeNvidiaSmi(dir);
        Path smi = fake.streaming(FakeNvidiaSmi.recorded("nvidia-smi-h200-busy.csv"), 2, apps, null);
        GpuSource source = source(FakeNvidiaSmi.config(smi), true);
        source.sample(0);
        await().atMost(WAIT).until(() -> {
            Thread.sleep(300);
            List<GpuSample> samples = source.sample(1_000);
            return samples.size() == 2 && samples.get(0).processCpuCores() != null;
        });
        Thread.sleep(1_000);
        List<GpuSample> samples = source.sample(2_000);
        assertThat(samples.get(0).processes()).isEqualTo(1);
        assertThat(samples.get(0).processCpuCores()).isNotNull().isGreaterThanOrEqualTo(0.0);
        assertThat(samples.get(0).processStates()).isNotEmpty();
        assertThat(samples.get(1).processes()).isZero();
        assertThat(samples.get(1).processCpuCores()).isNull();
        assertThat(samples.get(1).processStates()).isNull();
    }

    @Test
    void shouldPublishOneAveragedSamplePerGpuWithItsProcessesFromTheRecordedStream() throws Exception {
        FakeNvidiaSmi fake = new FakeNvidiaSmi(dir);
        Path smi = fake.streaming(FakeNvidiaSmi.recorded("nvidia-smi-h200-busy.csv"), 1,
                FakeNvidiaSmi.recorded("nvidia-smi-apps-busy.csv"), null);
        GpuSource source = source(FakeNvidiaSmi.config(smi), true);

        source.sample(0); // starts the process counts once a reading came
        await().atMost(WAIT).until(() -> {
            Thread.sleep(300);
            List<GpuSample> samples = source.sample(1_000);
            return samples.size() == 2 && samples.stream().allMatch(s -> s.processes() != null);
        });
        Thread.sleep(1_000);
        List<GpuSample> samples = source.sample(1_764_000_000_000L);

        assertThat(samples).extracting(GpuSample::key).containsExactly("gpu-node-1/0", "gpu-node-1/1");
        GpuSample first = samples.get(0);
        assertThat(first.uuid()).isEqualTo(GPU_0);
        assertThat(first.ts()).isEqualTo(1_764_000_000_000L);
        // measured: the time since the previous pass (a second's sleep)
        assertThat(first.intervalMs()).isBetween(1_000L, 1_500L);
        assertThat(first.v()).isEqualTo(GpuSample.VERSION);
        // the recorded busy GPU 0: 98 % busy, 2-3 % memory, 141.74-249.60 W (ramping up), 1980 MHz
        assertThat(first.utilizationPercent()).isEqualTo(98.0);
        assertThat(first.memoryUtilizationPercent()).isBetween(2.0, 3.0);
        assertThat(first.powerWatts()).isBetween(141.74, 249.60);
        assertThat(first.smClockMHz()).isEqualTo(1980.0);
        assertThat(first.processes()).isEqualTo(1);
        assertThat(samples.get(1).uuid()).isEqualTo(GPU_1);
        assertThat(samples.get(1).processes()).isEqualTo(1);
        assertThat(source.uuids()).containsExactly(GPU_1, GPU_0);
        assertThat(fake.calls()).contains("--query-gpu=index,uuid,utilization.gpu,utilization.memory,power.draw,"
                + "clocks.sm --format=csv,noheader,nounits -lms 200", "--query-compute-apps=gpu_uuid,pid "
                + "--format=csv,noheader,nounits");
        assertThat(count(GpuSource.PARSE_FAILURES_METRIC)).isZero();
        assertThat(count(GpuSource.RESTARTS_METRIC, "reason", "exit")).isZero();
    }

    @Test
    void shouldPublishNullsWhereTheDriverHasNoValueAndZeroProcessesOnAnIdleGpu() throws Exception {
        FakeNvidiaSmi fake = new FakeNvidiaSmi(dir);
        Path readings = dir.resolve("na.csv");
        Path smi = fake.streaming(readings, 1, null, null);
        Files.writeString(readings, "0, GPU-0b0b0b, [N/A], [N/A], [Not Supported], 1410\n");
        GpuSource source = source(FakeNvidiaSmi.config(smi), true);

        source.sample(0);
        await().atMost(WAIT).until(() -> {
            Thread.sleep(300);
            List<GpuSample> samples = source.sample(1_000);
            return samples.size() == 1 && samples.get(0).processes() != null;
        });
        Thread.sleep(1_000);
        GpuSample s = source.sample(2_000).get(0);

        assertThat(s).isEqualTo(new GpuSample(1, "gpu-node-1", 0, "GPU-0b0b0b", 2_000, s.intervalMs(), null, null,
                null, 1410.0, 0));
        assertThat(s.intervalMs()).isBetween(1_000L, 1_500L);
    }

    @Test
    void shouldLeaveProcessesNullWhereProcessesAreNotCounted() throws Exception {
        FakeNvidiaSmi fake = new FakeNvidiaSmi(dir);
        Path smi = fake.streaming(FakeNvidiaSmi.recorded("nvidia-smi-h200-idle.csv"), 2,
                FakeNvidiaSmi.recorded("nvidia-smi-apps-busy.csv"), null);
        GpuSource source = source(FakeNvidiaSmi.config(smi), false);

        await().atMost(WAIT).until(() -> {
            Thread.sleep(300);
            return source.sample(1_000).size() == 2;
        });
        Thread.sleep(500);

        assertThat(source.sample(2_000)).hasSize(2).allMatch(s -> s.processes() == null && s.powerWatts() > 70);
        assertThat(fake.calls()).noneMatch(call -> call.contains("compute-apps"));
    }

    @Test
    void shouldSayOnceThatThereIsNoDriverAndPickItUpWhenItAppears() throws Exception {
        ListAppender<ILoggingEvent> log = capture(GpuSource.class);
        FakeNvidiaSmi fake = new FakeNvidiaSmi(dir);
        Path smi = fake.script("nvidia-smi", "echo \"" + FakeNvidiaSmi.NO_DRIVER + "\"\nexit 9");
        GpuSource source = source(FakeNvidiaSmi.config(smi), true);

        await().atMost(WAIT).until(() -> fake.calls().size() >= 3);
        assertThat(source.isOff()).isTrue();
        assertThat(registry.get(GpuSource.OFF_METRIC).gauge().value()).isEqualTo(1.0);
        assertThat(source.sample(1_000)).isEmpty();
        List<String> said = log.list.stream().map(ILoggingEvent::getFormattedMessage)
                .filter(m -> m.contains("NVIDIA-SMI has failed")).toList();
        assertThat(said).hasSize(1);
        assertThat(said.get(0)).contains("retrying with backoff");
        assertThat(count(GpuSource.PARSE_FAILURES_METRIC)).isZero();

        // the driver container finished loading the driver
        Path working = fake.streaming(FakeNvidiaSmi.recorded("nvidia-smi-h200-idle.csv"), 2, null, null);
        assertThat(working).isEqualTo(smi);
        await().atMost(WAIT).until(() -> {
            Thread.sleep(200);
            return source.sample(1_000).size() == 2;
        });
        assertThat(source.isOff()).isFalse();
        assertThat(registry.get(GpuSource.OFF_METRIC).gauge().value()).isZero();
    }

    @Test
    void shouldKeepLookingForNvidiaSmiWhenThereIsNone() throws Exception {
        GpuSource source = source(FakeNvidiaSmi.config(dir.resolve("no-such-nvidia-smi")), true);

        await().atMost(WAIT).until(() -> count(GpuSource.RESTARTS_METRIC, "reason", "start-failed") >= 2);

        assertThat(source.isOff()).isTrue();
    }

    @Test
    void shouldNotReadTheCutOffLastLineOfAKilledNvidiaSmi() throws Exception {
        FakeNvidiaSmi fake = new FakeNvidiaSmi(dir);
        // one whole reading, then the first bytes of the next, as a killed nvidia-smi leaves them: "19" of 1980 MHz
        Path smi = fake.script("nvidia-smi", "echo '0, GPU-0b0b0b, 100, 0, 120.5, 1980'\n"
                + "printf '0, GPU-0b0b0b, 100, 0, 120.5, 19'\nexit 1");
        GpuSource source = source(FakeNvidiaSmi.config(smi), false);

        List<GpuSample> samples = new ArrayList<>();
        await().atMost(WAIT).until(() -> {
            Thread.sleep(200);
            samples.addAll(source.sample(1_000));
            return count(GpuSource.RESTARTS_METRIC, "reason", "exit") >= 3 && samples.size() >= 2;
        });

        assertThat(samples).allMatch(s -> s.smClockMHz() == 1980.0);
        assertThat(count(GpuSource.PARSE_FAILURES_METRIC)).isGreaterThanOrEqualTo(2);
    }

    @Test
    void shouldKeepAtMostOneProcessCountRunningAndReapTheKilledOnes() throws Exception {
        FakeNvidiaSmi fake = new FakeNvidiaSmi(dir);
        Path smi = fake.streaming(FakeNvidiaSmi.recorded("nvidia-smi-h200-idle.csv"), 2, null, null);
        // the apps query of this stand-in never answers
        Files.writeString(smi, Files.readString(smi).replace("case \"$*\" in *--query-compute-apps*) true;",
                "case \"$*\" in *--query-compute-apps*) sleep 600;"));
        GpuSource source = source(FakeNvidiaSmi.config(smi, GpuConfig.PROCESSES_TIMEOUT_MS_CONFIG, "300"), true);

        int mostCounts = 0;
        for (int i = 0; i < 20; i++) {
            Thread.sleep(200);
            source.sample(1_000);
            long counts = ProcessHandle.current().descendants()
                    .filter(p -> p.info().arguments().map(a -> String.join(" ", a).contains("compute-apps"))
                            .orElse(false)).count();
            mostCounts = (int) Math.max(mostCounts, counts);
        }

        assertThat(count(ProcessCounts.FAILURES_METRIC, "reason", "timeout")).isGreaterThanOrEqualTo(2);
        assertThat(mostCounts).isLessThanOrEqualTo(1);
        // every killed count was reaped: no zombie children of the collector
        await().atMost(WAIT).until(() -> zombieChildren() == 0);
        assertThat(Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("process reaper"))
                .count()).isLessThanOrEqualTo(3);
    }

    /** Children of this JVM in state Z (exited, not reaped). */
    private static long zombieChildren() {
        return ProcessHandle.current().children().filter(p -> {
            try {
                String stat = Files.readString(Path.of("/proc", Long.toString(p.pid()), "stat"));
                return stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z");
            } catch (java.io.IOException e) {
                return false;
            }
        }).count();
    }

    @Test
    void shouldRestartACrashingNvidiaSmiWithBackoffAndGoOnSampling() throws Exception {
        ListAppender<ILoggingEvent> log = capture(GpuSource.class);
        FakeNvidiaSmi fake = new FakeNvidiaSmi(dir);
        // prints the recorded 1 s once, then dies as a crashing binary does
        Path smi = fake.streaming(FakeNvidiaSmi.recorded("nvidia-smi-h200-idle.csv"), 2, null, "kill -SEGV $$");
        GpuSource source = source(FakeNvidiaSmi.config(smi), false);

        await().atMost(WAIT).until(() -> count(GpuSource.RESTARTS_METRIC, "reason", "exit") >= 2);
        await().atMost(WAIT).until(() -> {
            Thread.sleep(200);
            return source.sample(1_000).size() == 2;
        });

        assertThat(source.isOff()).isFalse();
        assertThat(log.list).map(ILoggingEvent::getFormattedMessage)
                .anyMatch(m -> m.startsWith("nvidia-smi: pid ") && m.contains("exited") && m.contains("restarting"));
    }

    @Test
    void shouldKillAHangingNvidiaSmiAndStartAnother() throws Exception {
        FakeNvidiaSmi fake = new FakeNvidiaSmi(dir);
        // a GPU fallen off the bus: NVML blocks, nvidia-smi prints nothing more
        Path smi = fake.streaming(FakeNvidiaSmi.recorded("nvidia-smi-h200-idle.csv"), 2, null, "sleep 600");
        GpuSource source = source(FakeNvidiaSmi.config(smi, GpuConfig.SILENCE_TIMEOUT_MS_CONFIG, "1500"), false);

        // the sampling pass is the watchdog
        await().atMost(WAIT).until(() -> {
            Thread.sleep(200);
            source.sample(1_000);
            return count(GpuSource.RESTARTS_METRIC, "reason", "silent") >= 1 && fake.pids().size() >= 2;
        });

        assertThat(count(GpuSource.STUCK_CALLS_METRIC, "part", "reader")).isGreaterThanOrEqualTo(1);
        long hung = fake.pids().get(0);
        await().atMost(WAIT).until(() -> ProcessHandle.of(hung).map(ProcessHandle::isAlive).orElse(false) == false);
        await().atMost(WAIT).until(() -> {
            Thread.sleep(200);
            return source.sample(1_000).size() == 2;
        });
    }

    @Test
    void shouldLeaveProcessesNullAndCountWhenTheProcessQueryHangs() throws Exception {
        FakeNvidiaSmi fake = new FakeNvidiaSmi(dir);
        Path smi = fake.streaming(FakeNvidiaSmi.recorded("nvidia-smi-h200-idle.csv"), 2, null, null);
        // the apps query of this stand-in never answers
        Files.writeString(smi, Files.readString(smi).replace("case \"$*\" in *--query-compute-apps*) true;",
                "case \"$*\" in *--query-compute-apps*) sleep 600;"));
        GpuSource source = source(FakeNvidiaSmi.config(smi, GpuConfig.PROCESSES_TIMEOUT_MS_CONFIG, "300"), true);

        await().atMost(WAIT).until(() -> {
            Thread.sleep(200);
            source.sample(1_000);
            return count(ProcessCounts.FAILURES_METRIC, "reason", "timeout") >= 1;
        });
        Thread.sleep(300);

        assertThat(source.sample(2_000)).hasSize(2).allMatch(s -> s.processes() == null);
    }

}
