package io.rdmamon.collector.gpu;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.model.GpuSample;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The GPU source on NVML, with a stand-in library ({@link FakeNvml}) that hangs as a call blocked in the kernel does,
 * crashes, appears late or loses a GPU: at most one call outstanding whatever it does, reported, and recovered from.
 */
class NvmlReaderTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String GPU_0 = "GPU-fa2badef-49a9-1483-88ed-34afc018aeb1";
    private static final String GPU_1 = "GPU-74f94dfb-ad46-d469-fbb0-c0b2e470c1d7";
    private static final long INTERVAL_MS = 200;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<GpuSource> sources = new ArrayList<>();
    private final List<Runnable> cleanups = new ArrayList<>();

    @AfterEach
    void tearDown() {
        cleanups.forEach(Runnable::run);
        sources.forEach(GpuSource::close);
    }

    private GpuSource source(FakeNvml nvml, Object... overrides) {
        return sourceEvery(INTERVAL_MS, nvml, overrides);
    }

    private GpuSource sourceEvery(long intervalMs, FakeNvml nvml, Object... overrides) {
        cleanups.add(nvml::release);
        Map<String, Object> props = new HashMap<>(Map.of(
                GpuConfig.READ_INTERVAL_MS_CONFIG, "50",
                GpuConfig.SILENCE_TIMEOUT_MS_CONFIG, "500",
                GpuConfig.BACKOFF_INITIAL_MS_CONFIG, "50",
                GpuConfig.BACKOFF_MAX_MS_CONFIG, "400"));
        for (int i = 0; i < overrides.length; i += 2) {
            props.put((String) overrides[i], overrides[i + 1]);
        }
        GpuSource s = new GpuSource(new GpuConfig(props), "gpu-node-1", intervalMs, true, registry, nvml);
        sources.add(s);
        return s;
    }

    /** Samples once per interval until {@code done} holds for a pass; returns that pass. */
    private static List<GpuSample> sampleUntil(GpuSource source, java.util.function.Predicate<List<GpuSample>> done) {
        List<List<GpuSample>> hit = new ArrayList<>();
        await().atMost(WAIT).until(() -> {
            Thread.sleep(INTERVAL_MS);
            List<GpuSample> pass = source.sample(System.currentTimeMillis());
            if (done.test(pass)) {
                hit.add(pass);
                return true;
            }
            return false;
        });
        return hit.get(0);
    }

    private double count(String metric, String... tags) {
        Counter c = registry.find(metric).tags(tags).counter();
        return c == null ? 0 : c.count();
    }

    private double gauge(String metric) {
        return registry.get(metric).gauge().value();
    }

    private ListAppender<ILoggingEvent> capture() {
        Logger logger = (Logger) LoggerFactory.getLogger(GpuSource.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        cleanups.add(() -> logger.detachAppender(appender));
        return appender;
    }

    @Test
    void shouldPublishAveragedReadingsWithTheProcessesOfTheIntervalsEndAndAMeasuredInterval() {
        FakeNvml nvml = new FakeNvml(GPU_0, GPU_1);
        GpuSource source = source(nvml);

        List<GpuSample> first = sampleUntil(source, pass -> pass.size() == 2);
        List<GpuSample> samples = sampleUntil(source, pass -> pass.size() == 2 && pass.get(0).processes() != null);

        assertThat(first).allMatch(s -> s.intervalMs() == 0);
        GpuSample s = samples.get(0);
        assertThat(s.uuid()).isEqualTo(GPU_0);
        assertThat(s.intervalMs()).isBetween(INTERVAL_MS - 20, INTERVAL_MS * 5);
        assertThat(s.utilizationPercent()).isEqualTo(98.0);
        assertThat(s.powerWatts()).isEqualTo(150.0);
        assertThat(s.processes()).isEqualTo(1);
        assertThat(s.error()).isNull();
        assertThat(source.processes().pids(GPU_1)).containsExactly(4242L);
        assertThat(source.reader()).startsWith("NVML");
        assertThat(nvml.callingThreads).containsExactly("gpu-nvml");
        assertThat(gauge(GpuSource.OFF_METRIC)).isZero();
    }

    @Test
    void shouldPublishOnlyProcessesCountedWithinTheSamplesInterval() throws Exception {
        FakeNvml nvml = new FakeNvml(GPU_0);
        // 1 s intervals: the processes are counted in the last 75 ms (1.5 readings) before the next pass is due
        GpuSource source = sourceEvery(1_000, nvml);
        await().atMost(WAIT).until(() -> {
            Thread.sleep(1_000);
            List<GpuSample> pass = source.sample(System.currentTimeMillis());
            return pass.size() == 1 && pass.get(0).processes() != null;
        });

        // a pass soon after: new readings, but no count yet in this interval, and the last one is not published
        Thread.sleep(100);
        List<GpuSample> early = source.sample(System.currentTimeMillis());

        assertThat(early).hasSize(1);
        assertThat(early.get(0).processes()).isNull();
        assertThat(early.get(0).intervalMs()).isBetween(90L, 900L);
        assertThat(source.processes()).isNull();
        Thread.sleep(1_000);
        assertThat(source.sample(System.currentTimeMillis()).get(0).processes()).isEqualTo(1);
    }

    @Test
    void shouldKeepOneCallOutstandingReportItStopTheSamplesAndRecoverWhenItReturns() throws Exception {
        ListAppender<ILoggingEvent> log = capture();
        FakeNvml nvml = new FakeNvml(GPU_0, GPU_1);
        GpuSource source = source(nvml);
        sampleUntil(source, pass -> pass.size() == 2);

        nvml.hang();
        sampleUntil(source, pass -> source.isStuck());
        // stuck for ten more silence timeouts: still the one call, no samples, reported once
        for (int i = 0; i < 25; i++) {
            Thread.sleep(INTERVAL_MS);
            assertThat(source.sample(System.currentTimeMillis())).isEmpty();
        }
        assertThat(nvml.outstanding.get()).isEqualTo(1);
        assertThat(nvml.mostOutstanding.get()).isEqualTo(1);
        assertThat(count(GpuSource.STUCK_CALLS_METRIC, "part", "reader")).isEqualTo(1);
        assertThat(gauge(GpuSource.STUCK_METRIC)).isEqualTo(1);
        assertThat(log.list).map(ILoggingEvent::getFormattedMessage).filteredOn(m -> m.contains("stuck")).hasSize(1);
        int opensBefore = nvml.opens.get();

        nvml.release();
        List<GpuSample> after = sampleUntil(source, pass -> pass.size() == 2);

        assertThat(after).allMatch(s -> s.utilizationPercent() == 98.0);
        // the first record after the gap covers no known interval
        assertThat(after).allMatch(s -> s.intervalMs() == 0);
        assertThat(source.isStuck()).isFalse();
        assertThat(gauge(GpuSource.STUCK_METRIC)).isZero();
        assertThat(nvml.closes.get()).isGreaterThanOrEqualTo(1);
        assertThat(nvml.opens.get()).isGreaterThan(opensBefore);
        assertThat(nvml.mostOutstanding.get()).isEqualTo(1);
        assertThat(Thread.getAllStackTraces().keySet()).filteredOn(t -> t.getName().equals("gpu-nvml")).hasSize(1);
    }

    @Test
    void shouldOpenNvmlAgainAfterACrashInsideTheBinding() {
        FakeNvml nvml = new FakeNvml(GPU_0);
        GpuSource source = source(nvml);
        sampleUntil(source, pass -> pass.size() == 1);

        nvml.crashNextRead = true;
        await().atMost(WAIT).until(() -> nvml.closes.get() >= 1);
        List<GpuSample> after = sampleUntil(source, pass -> pass.size() == 1);

        assertThat(after.get(0).utilizationPercent()).isEqualTo(98.0);
        assertThat(nvml.opens.get()).isGreaterThanOrEqualTo(2);
    }

    @Test
    void shouldPickUpADriverLoadedAfterTheCollectorStarted() throws Exception {
        ListAppender<ILoggingEvent> log = capture();
        FakeNvml nvml = new FakeNvml(GPU_0);
        nvml.failingOpens = 5;
        GpuSource source = source(nvml);

        await().atMost(WAIT).until(source::isOff);
        assertThat(gauge(GpuSource.OFF_METRIC)).isEqualTo(1);
        assertThat(source.sample(System.currentTimeMillis())).isEmpty();
        List<GpuSample> samples = sampleUntil(source, pass -> pass.size() == 1);

        assertThat(samples.get(0).uuid()).isEqualTo(GPU_0);
        assertThat(source.isOff()).isFalse();
        assertThat(gauge(GpuSource.OFF_METRIC)).isZero();
        assertThat(nvml.opens.get()).isEqualTo(6);
        // one line for the missing driver (rate-limited), one when it appeared
        assertThat(log.list).map(ILoggingEvent::getFormattedMessage).filteredOn(m -> m.contains("Driver Not Loaded"))
                .hasSize(1);
        assertThat(log.list).map(ILoggingEvent::getFormattedMessage).anyMatch(m -> m.contains("NVML found 1 GPU"));
    }

    @Test
    void shouldKeepALostGpuInTheSamplesWithNullValuesAndItsError() {
        FakeNvml nvml = new FakeNvml(GPU_0, GPU_1);
        GpuSource source = source(nvml);
        sampleUntil(source, pass -> pass.size() == 2);

        nvml.lostGpu = GPU_1;
        // the interval it was lost in averages the readings it still gave; the next ones have none
        sampleUntil(source, pass -> pass.size() == 2 && pass.get(1).error() != null);
        List<GpuSample> samples = sampleUntil(source, pass -> pass.size() == 2 && pass.get(0).processes() != null);

        GpuSample lost = samples.get(1);
        assertThat(lost.uuid()).isEqualTo(GPU_1);
        assertThat(lost.error()).isEqualTo("GPU is lost");
        assertThat(lost.utilizationPercent()).isNull();
        assertThat(lost.powerWatts()).isNull();
        assertThat(lost.smClockMHz()).isNull();
        assertThat(lost.processes()).isNull();
        assertThat(samples.get(0).error()).isNull();
        assertThat(samples.get(0).processes()).isEqualTo(1);
    }

    @Test
    void shouldListMigDevicesAndLeaveUtilizationNullOnAMigGpu() {
        FakeNvml nvml = new FakeNvml(GPU_0);
        nvml.mig = List.of("MIG-aaaa", "MIG-bbbb");
        GpuSource source = source(nvml);

        List<GpuSample> samples = sampleUntil(source, pass -> pass.size() == 1 && pass.get(0).migDevices() != null
                && pass.get(0).processes() != null);

        assertThat(samples.get(0).migDevices()).containsExactly("MIG-aaaa", "MIG-bbbb");
        assertThat(samples.get(0).utilizationPercent()).isNull();
        assertThat(samples.get(0).processes()).isEqualTo(1);
    }

    @Test
    void shouldFallBackToNvidiaSmiWhenNvmlCannotBeLoadedInAutoMode() {
        FakeNvml nvml = new FakeNvml(GPU_0);
        nvml.unloadable = true;
        GpuSource source = source(nvml, GpuConfig.COMMAND_CONFIG, "/no/such/nvidia-smi");

        await().atMost(WAIT).until(() -> {
            source.sample(System.currentTimeMillis());
            return source.reader().contains("nvidia-smi");
        });
    }

    @Test
    void shouldKeepRetryingNvmlWhenItIsChosen() throws Exception {
        FakeNvml nvml = new FakeNvml(GPU_0);
        nvml.unloadable = true;
        GpuSource source = source(nvml, GpuConfig.READER_CONFIG, GpuConfig.NVML);

        await().atMost(WAIT).until(() -> nvml.opens.get() >= 3);
        source.sample(System.currentTimeMillis());
        assertThat(source.reader()).startsWith("NVML");
        nvml.unloadable = false;
        assertThat(sampleUntil(source, pass -> pass.size() == 1)).hasSize(1);
    }
}
