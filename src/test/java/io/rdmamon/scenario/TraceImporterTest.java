package io.rdmamon.scenario;

import io.rdmamon.jobs.SocketPorts;
import io.rdmamon.model.HostIfaceSample;
import io.rdmamon.model.JobRecord;
import io.rdmamon.model.PortSample;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.zip.GZIPOutputStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A small trace written as record.sh writes one: a 2-rank job that initialises for 10 s, trains at 100 MB/s each way
 * per rank, pauses 6 s at 40 s, and whose rank 1 hangs at 70 s.
 */
class TraceImporterTest {
    private static final long START = 1_795_000_000_000L;
    private static final long EPOCH = TraceImporter.EPOCH;

    @TempDir
    Path dir;
    private NcclTrace trace;

    @BeforeEach
    void writeTrace() throws IOException {
        Files.writeString(dir.resolve("trace.json"), """
                {"v": 1, "name": "tiny", "description": "a tiny job", "startEpochMs": %d, "durationMs": 90000,
                 "sampleHz": 10, "jobs": [{"name": "tiny-job", "ranks": 2, "args": []}],
                 "incidents": [{"kind": "hang", "job": "tiny-job", "rank": 1, "atMs": 70000}]}
                """.formatted(START));
        StringBuilder counters = new StringBuilder("t_ms,job,rank,tx_bytes,rx_bytes,tx_packets,rx_packets\n");
        long[] sent = new long[2];
        for (long t = 0; t <= 90_000; t += 100) {
            boolean training = t > 10_000 && t <= 70_000 && !(t > 40_000 && t <= 46_000);
            for (int rank = 0; rank < 2; rank++) {
                sent[rank] += training ? 10_000_000 : 0;
                counters.append(t).append(",tiny-job,").append(rank).append(',').append(sent[rank]).append(',')
                        .append(sent[rank]).append(",0,0\n");
            }
        }
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(dir.resolve("counters.csv.gz")))) {
            out.write(counters.toString().getBytes(StandardCharsets.UTF_8));
        }
        StringBuilder events = new StringBuilder();
        for (int rank = 0; rank < 2; rank++) {
            events.append(event(5_000, rank, "init_start")).append(event(10_000, rank, "init_done"));
        }
        Files.writeString(dir.resolve("events.jsonl"), events);
        trace = NcclTrace.read(dir);
    }

    private static String event(long t, int rank, String name) {
        return "{\"t\": " + (START + t) + ", \"job\": \"tiny-job\", \"rank\": " + rank + ", \"event\": \"" + name
                + "\"}\n";
    }

    @Test
    void shouldPutEachRanksBytesOnItsOwnRdmaPortOncePerSecondWithTheFirstRatesUnknown() {
        ScenarioRecorder.Recording rdma = TraceImporter.importTrace(trace, TraceImporter.Form.RDMA, 0, 0, 1);

        List<PortSample> node1 = rdma.portSamples().stream().filter(p -> p.node().equals("gpu-node-1"))
                .sorted(Comparator.comparingLong(PortSample::ts)).toList();
        assertThat(node1).hasSize(90).allSatisfy(p -> assertThat(p.device()).isEqualTo("mlx5_0"));
        assertThat(node1.get(0).txBytesPerSec()).isNull();
        assertThat(node1.get(0).ts()).isEqualTo(EPOCH);
        PortSample training = node1.stream().filter(p -> p.ts() == EPOCH + 20_000).findFirst().orElseThrow();
        assertThat(training.txBytesPerSec()).isEqualTo(100e6);
        assertThat(training.intervalMs()).isEqualTo(1_000);
        // gpu-node-2 samples 137 ms into each second: its collector's own stagger
        assertThat(rdma.portSamples()).filteredOn(p -> p.node().equals("gpu-node-2"))
                .allSatisfy(p -> assertThat(p.ts() % 1_000).isEqualTo((EPOCH + 137) % 1_000));
        assertThat(rdma.hostSamples()).filteredOn(h -> h.txBytesPerSec() != null)
                .allSatisfy(h -> assertThat(h.txBytesPerSec()).isLessThan(4e6));
    }

    @Test
    void shouldMoveTheBytesToEth0AndIdleTheRdmaPortInTheTcpForm() {
        ScenarioRecorder.Recording tcp = TraceImporter.importTrace(trace, TraceImporter.Form.TCP, 0, 0, 1);

        assertThat(tcp.portSamples()).filteredOn(p -> p.txBytesPerSec() != null)
                .allSatisfy(p -> assertThat(p.txBytesPerSec()).isZero());
        HostIfaceSample eth0 = tcp.hostSamples().stream()
                .filter(h -> h.node().equals("gpu-node-1") && h.ts() == EPOCH + 20_000).findFirst().orElseThrow();
        assertThat(eth0.iface()).isEqualTo("eth0");
        assertThat(eth0.txBytesPerSec()).isBetween(100e6, 104e6);
        // the job hangs 60 s after training began on sockets: too soon to require the fallback alert (90 s)
        assertThat(tcp.truth().incidents()).filteredOn(i -> i.type().equals("TCP_FALLBACK")).singleElement()
                .satisfies(i -> {
                    assertThat(i.expect()).isEqualTo(Incident.TOLERATE);
                    assertThat(i.onsetMs()).isEqualTo(EPOCH + 10_000);
                    assertThat(i.endMs()).isEqualTo(EPOCH + 70_000);
                });
    }

    @Test
    void shouldMoveTheBytesToEth0HalfWayThroughInTheSwitchForm() {
        ScenarioRecorder.Recording switched = TraceImporter.importTrace(trace, TraceImporter.Form.SWITCH, 0, 0, 1);

        assertThat(switched.portSamples()).filteredOn(p -> p.node().equals("gpu-node-1"))
                .filteredOn(p -> p.ts() == EPOCH + 30_000 || p.ts() == EPOCH + 50_000)
                .extracting(PortSample::txBytesPerSec).containsExactly(100e6, 0.0);
        assertThat(switched.hostSamples()).filteredOn(h -> h.node().equals("gpu-node-1") && h.ts() == EPOCH + 50_000)
                .singleElement().satisfies(h -> assertThat(h.txBytesPerSec()).isBetween(100e6, 104e6));
        // on RDMA when it hung? no: the hang at 70 s comes after the switch at 45 s
        assertThat(switched.truth().incidents()).filteredOn(Incident::required).isEmpty();
    }

    @Test
    void shouldPublishASocketJobWhoseEth0CarriesTheBytesAndOtherTrafficInTheSocketForm() {
        ScenarioRecorder.Recording socket = TraceImporter.importTrace(trace, TraceImporter.Form.SOCKET, 0, 0, 1);

        assertThat(socket.portSamples()).as("no RDMA device in a P16EN pod").isEmpty();
        assertThat(socket.jobs()).allSatisfy(j -> {
            assertThat(j.labels()).containsEntry(SocketPorts.TRANSPORT_LABEL, SocketPorts.SOURCE);
            assertThat(j.ranks()).allSatisfy(r -> assertThat(r.devices()).containsExactly("eth0"));
        });
        List<HostIfaceSample> eth0 = socket.hostSamples().stream().filter(h -> h.node().equals("gpu-node-1"))
                .filter(h -> h.txBytesPerSec() != null).toList();
        // before training and while paused, the other traffic alone: 2-6 MB/s, steady and in bursts
        List<Double> other = eth0.stream().filter(h -> h.ts() < EPOCH + 10_000 || h.ts() > EPOCH + 41_000
                && h.ts() <= EPOCH + 46_000 || h.ts() > EPOCH + 71_000)
                .map(h -> h.txBytesPerSec() + h.rxBytesPerSec()).toList();
        assertThat(other).hasSizeGreaterThan(20).allSatisfy(r -> assertThat(r).isBetween(1.6e6, 6e6));
        assertThat(other.stream().mapToDouble(Double::doubleValue).max().orElseThrow()).as("a data-loading burst")
                .isGreaterThan(4e6);
        assertThat(eth0).filteredOn(h -> h.ts() == EPOCH + 20_000).singleElement()
                .satisfies(h -> assertThat(h.txBytesPerSec()).isBetween(100e6, 103e6));
        // a job meant to run over sockets never falls back: its hang is required as on RDMA
        assertThat(socket.truth().incidents()).filteredOn(Incident::required).singleElement()
                .satisfies(i -> assertThat(i.type()).isEqualTo("STALLED_SYNC"));
    }

    @Test
    void shouldLabelTheHangWithADeadlineOfTwiceTheLongestPausePlus3SecondsAndTolerateTheFirstLongPause() {
        GroundTruth truth = TraceImporter.importTrace(trace, TraceImporter.Form.RDMA, 0, 0, 1).truth();

        assertThat(truth.incidents()).filteredOn(i -> i.type().equals("STALLED_SYNC")).extracting(
                Incident::expect, Incident::onsetMs, Incident::endMs, Incident::maxLatencyMs).containsExactly(
                org.assertj.core.groups.Tuple.tuple(Incident.TOLERATE, EPOCH + 40_000, EPOCH + 46_000, null),
                org.assertj.core.groups.Tuple.tuple(Incident.ALERT, EPOCH + 70_000, null, 15_000L));
    }

    @Test
    void shouldReportACrashedRanksJobFailedAsKubernetesDoesAndTolerateAStallBeforeThat() throws IOException {
        Files.writeString(dir.resolve("trace.json"), Files.readString(dir.resolve("trace.json"))
                .replace("\"kind\": \"hang\"", "\"kind\": \"crash\""));
        ScenarioRecorder.Recording crashed = TraceImporter.importTrace(NcclTrace.read(dir), TraceImporter.Form.RDMA,
                0, 0, 1);

        assertThat(crashed.jobs()).last().satisfies(job -> {
            assertThat(job.state()).isEqualTo(JobRecord.FAILED);
            assertThat(job.updatedAt()).isEqualTo(EPOCH + 73_000);
            assertThat(job.ranks()).hasSize(2);
        });
        assertThat(crashed.truth().incidents()).filteredOn(i -> i.type().equals("STALLED_SYNC"))
                .extracting(Incident::expect).containsOnly(Incident.TOLERATE);
    }

    @Test
    void shouldShiftTheTraceByTheWholeSecondsOfThePhaseAndSampleAtTheRest() {
        ScenarioRecorder.Recording shifted = TraceImporter.importTrace(trace, TraceImporter.Form.RDMA, 7_250, 0, 1);

        assertThat(shifted.truth().startMs()).isEqualTo(EPOCH + 7_000);
        assertThat(shifted.portSamples()).filteredOn(p -> p.node().equals("gpu-node-1"))
                .allSatisfy(p -> assertThat(p.ts() % 1_000).isEqualTo((EPOCH + 250) % 1_000));
        assertThat(shifted.truth().incidents()).filteredOn(Incident::required).singleElement()
                .satisfies(i -> assertThat(i.onsetMs()).isEqualTo(EPOCH + 77_000));
        JobRecord running = shifted.jobs().stream().filter(j -> j.state().equals(JobRecord.RUNNING)).findFirst()
                .orElseThrow();
        assertThat(running.updatedAt()).isEqualTo(EPOCH + 7_000 + 3_000);
        assertThat(running.ranks()).extracting(JobRecord.Rank::node).containsExactly("gpu-node-1", "gpu-node-2");
    }

    @Test
    void shouldRefusePhasesAndJitterOutOfRangeAndTracesOfAnotherVersion() throws IOException {
        assertThatThrownBy(() -> TraceImporter.importTrace(trace, TraceImporter.Form.RDMA, 60_000, 0, 1))
                .hasMessageContaining("phase");
        assertThatThrownBy(() -> TraceImporter.importTrace(trace, TraceImporter.Form.RDMA, 0, 500, 1))
                .hasMessageContaining("jitter");
        assertThatThrownBy(() -> TraceImporter.Form.of("rocev2")).hasMessageContaining("--form takes rdma, tcp, switch or socket");
        Files.writeString(dir.resolve("trace.json"), Files.readString(dir.resolve("trace.json"))
                .replace("\"v\": 1", "\"v\": 2"));
        assertThatThrownBy(() -> NcclTrace.read(dir)).hasMessageContaining("v2 is not supported");
    }
}
