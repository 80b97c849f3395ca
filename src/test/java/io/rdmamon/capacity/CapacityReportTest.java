package io.rdmamon.capacity;

import com.fasterxml.jackson.databind.JsonNode;
import io.rdmamon.capacity.CapacityReport.IdleLink;
import io.rdmamon.capacity.CapacityReport.JobDemand;
import io.rdmamon.capacity.CapacityReport.JobRdmaUse;
import io.rdmamon.capacity.CapacityReport.LinkUsage;
import io.rdmamon.capacity.CapacityReport.NodeUsage;
import io.rdmamon.cli.Main;
import io.rdmamon.model.JobBandwidth;
import io.rdmamon.model.Json;
import io.rdmamon.testing.ClusterScenario;
import io.rdmamon.testing.ClusterScenario.Link;
import io.rdmamon.testing.ScenarioDatabase;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * {@code rdmamon capacity} on the {@link ClusterScenario} in a real influxd (raw points written by the sink, rollups
 * by the continuous queries' SELECT ... INTO): every number is compared with what the scenario's truth gives.
 */
class CapacityReportTest {
    private static final double EPS = 1e-9;
    private static ScenarioDatabase db;
    private static ClusterScenario scenario;
    private static CapacityReport report;

    @BeforeAll
    static void analyse() {
        db = ScenarioDatabase.get();
        scenario = db.scenario;
        report = analysis("rp_1y").run();
    }

    private static CapacityAnalysis analysis(String retentionPolicy) {
        return new CapacityAnalysis(db.client, db.database(), new CapacityQueries(retentionPolicy,
                Duration.ofDays(7)), 0.01, 10, 5);
    }

    @Test
    void shouldReportTheConstantLinkAtItsConstantUtilisationWithTheRestAsHeadroom() {
        LinkUsage llama = link(ClusterScenario.LLAMA_0);

        assertThat(List.of(llama.p50(), llama.p95(), llama.p99(), llama.max()))
                .allSatisfy(p -> assertThat(p).isCloseTo(0.6, within(EPS)));
        assertThat(llama.headroom()).isCloseTo(0.4, within(EPS));
        assertThat(llama.nominalBytesPerSec()).isEqualTo((double) ClusterScenario.RATE);
        assertThat(llama.headroomBytesPerSec()).isCloseTo(0.4 * ClusterScenario.RATE, within(1.0));
    }

    @Test
    void shouldComputeNearestRankPercentilesAndThePeakHourOfEveryLinkFromTheMinuteMeans() {
        assertThat(report.links()).extracting(l -> l.node() + "/" + l.device() + "/" + l.port())
                .containsExactlyInAnyOrderElementsOf(ClusterScenario.LINKS.stream().map(Link::toString).toList());
        for (Link link : ClusterScenario.LINKS) {
            List<Double> minutes = new ArrayList<>(minuteValues(link).values());
            LinkUsage usage = link(link);
            assertThat(usage.p50()).as(link + " p50").isCloseTo(percentile(minutes, 50), within(EPS));
            assertThat(usage.p95()).as(link + " p95").isCloseTo(percentile(minutes, 95), within(EPS));
            assertThat(usage.p99()).as(link + " p99").isCloseTo(percentile(minutes, 99), within(EPS));
            Map<Long, Double> hours = hourlyMeans(minuteValues(link));
            double peak = hours.values().stream().mapToDouble(Double::doubleValue).max().orElseThrow();
            assertThat(usage.peakHourUtilisation()).as(link + " peak hour utilisation").isCloseTo(peak, within(EPS));
            assertThat(usage.peakHour()).as(link + " peak hour").isIn(peakHours(hours, peak));
        }
        // the resnet burst makes its hour the only peak, whatever the time of day: the check can tell hours apart
        assertThat(peakHours(hourlyMeans(minuteValues(ClusterScenario.RESNET_0)),
                link(ClusterScenario.RESNET_0).peakHourUtilisation())).containsExactly(
                link(ClusterScenario.RESNET_0).peakHour());
        assertThat(report.links().get(0).p95()).isCloseTo(0.85, within(EPS));
        assertThat(report.links()).isSortedAccordingTo((a, b) -> Double.compare(b.p95(), a.p95()));
    }

    @Test
    void shouldAverageANodesLinksPerMinuteBeforeTakingPercentiles() {
        assertThat(report.nodes()).extracting(NodeUsage::node)
                .containsExactlyInAnyOrder("gpu-01", "gpu-02", "gpu-03", "gpu-04", ClusterScenario.SILENT_NODE);
        for (NodeUsage node : report.nodes()) {
            List<Link> links = ClusterScenario.LINKS.stream().filter(l -> l.node().equals(node.node())).toList();
            Map<Long, List<Double>> byMinute = new TreeMap<>();
            links.forEach(l -> minuteValues(l).forEach((minute, u) -> byMinute.computeIfAbsent(minute,
                    k -> new ArrayList<>()).add(u)));
            List<Double> means = byMinute.values().stream()
                    .map(v -> v.stream().mapToDouble(Double::doubleValue).average().orElseThrow()).toList();
            assertThat(node.links()).isEqualTo(links.size());
            assertThat(node.p95()).as(node.node()).isCloseTo(percentile(means, 95), within(EPS));
            assertThat(node.p50()).as(node.node()).isCloseTo(percentile(means, 50), within(EPS));
            assertThat(node.headroom()).isCloseTo(1 - percentile(means, 95), within(EPS));
            assertThat(node.peakHour()).isNotNull();
        }
    }

    @Test
    void shouldListOnlyTheAllocatedLinkThatNeverCarriedTraffic() {
        long minutes = minuteValues(ClusterScenario.IDLE).size();

        assertThat(report.idleLinks()).containsExactly(new IdleLink("gpu-02", "mlx5_1", "1", "vision", "uid-resnet",
                "resnet-50", minutes, 0.0, 0.0));
    }

    @Test
    void shouldRankJobsByTheirMeanBandwidthWhileRunning() {
        double llama = 2 * 0.6 * 1.98 * ClusterScenario.RATE;
        double bert = jobMean("bert-large");

        assertThat(report.busiestJobs()).extracting(JobDemand::job)
                .containsExactly("llama-70b", "bert-large", "resnet-50");
        JobDemand top = report.busiestJobs().get(0);
        assertThat(top.namespace()).isEqualTo("llm");
        assertThat(List.of(top.meanBytesPerSec(), top.p50BytesPerSec(), top.p95BytesPerSec(), top.p99BytesPerSec(),
                top.peakBytesPerSec())).allSatisfy(v -> assertThat(v).isCloseTo(llama, within(1.0)));
        assertThat(top.minutes()).isEqualTo(minuteValues(ClusterScenario.LLAMA_0).size());
        assertThat(report.busiestJobs().get(1).meanBytesPerSec()).isCloseTo(bert, within(1.0));
    }

    @Test
    void shouldListJobsByRdmaShareLowestFirstWithTheirPeakPerNicAgainstTheExpectedFigure() {
        List<String> byShare = jobMinuteMeans(b -> b.rdmaShare()).entrySet().stream()
                .sorted(Comparator.comparingDouble(e -> mean(e.getValue()))).map(Map.Entry::getKey).toList();

        assertThat(report.rdmaUse()).extracting(JobRdmaUse::job).containsExactlyElementsOf(byShare);
        // bert-large's 10-minute stall (RDMA at 0, eth0 at its background) pulls its share below the others'
        assertThat(byShare.get(0)).isEqualTo("bert-large");
        for (JobRdmaUse use : report.rdmaUse()) {
            String job = use.job();
            assertThat(use.rdmaShare()).as(job).isCloseTo(mean(jobMinuteMeans(b -> b.rdmaShare()).get(job)),
                    within(EPS));
            assertThat(use.meanHostBytesPerSec()).as(job)
                    .isCloseTo(mean(jobMinuteMeans(b -> b.hostBytesPerSec()).get(job)), within(1.0));
            assertThat(use.peakNicBytesPerSec()).as(job).isCloseTo(jobMinuteMeans(b -> b.nicBytesPerSec()).get(job)
                    .stream().mapToDouble(Double::doubleValue).max().orElseThrow(), within(1.0));
            assertThat(use.minutes()).as(job).isEqualTo(jobMinuteMeans(b -> b.rdmaShare()).get(job).size());
        }
        // llama-70b: both NICs at a constant 60 % of 25 GB/s = 15 GB/s, against the 20 GB/s expected of an mlx5
        JobRdmaUse llama = report.rdmaUse().stream().filter(u -> u.job().equals("llama-70b")).findFirst().orElseThrow();
        assertThat(llama.peakNicBytesPerSec()).isCloseTo(0.6 * ClusterScenario.RATE, within(1.0));
        assertThat(llama.expectedNicBytesPerSec()).isEqualTo(ClusterScenario.EXPECTED_NIC);
        assertThat(llama.peakOfExpected()).isCloseTo(0.75, within(EPS));
        // no figure configured for resnet-50's NICs: the comparison is unknown, not 0
        JobRdmaUse resnet = report.rdmaUse().stream().filter(u -> u.job().equals("resnet-50")).findFirst()
                .orElseThrow();
        assertThat(resnet.expectedNicBytesPerSec()).isNull();
        assertThat(resnet.peakOfExpected()).isNull();
        assertThat(resnet.peakNicBytesPerSec()).isCloseTo(0.85 * ClusterScenario.RATE / 2, within(1.0));
    }

    /** The scenario's job windows: job → the mean of {@code field} in each minute it has a value, as InfluxDB groups. */
    private static Map<String, List<Double>> jobMinuteMeans(ToDoubleFunction<JobBandwidth> field) {
        Map<String, Map<Long, List<Double>>> byJobMinute = new TreeMap<>();
        for (JobBandwidth b : scenario.jobBandwidth) {
            byJobMinute.computeIfAbsent(b.job(), k -> new TreeMap<>())
                    .computeIfAbsent(b.windowStart() / 60_000 * 60_000, k -> new ArrayList<>())
                    .add(field.applyAsDouble(b));
        }
        Map<String, List<Double>> out = new TreeMap<>();
        byJobMinute.forEach((job, minutes) -> out.put(job, minutes.values().stream().map(CapacityReportTest::mean)
                .toList()));
        return out;
    }

    private static double mean(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
    }

    @Test
    void shouldFoldHourlyClusterThroughputIntoHoursOfTheDay() {
        Map<Integer, Double> expected = new TreeMap<>();
        Map<Long, Double> clusterByHour = new TreeMap<>();
        for (Link link : ClusterScenario.LINKS) {
            hourlyMeans(minuteValues(link)).forEach((hour, u) -> clusterByHour.merge(hour, u * ClusterScenario.RATE,
                    Double::sum));
        }
        clusterByHour.forEach((hour, tx) -> expected.put(Instant.ofEpochMilli(hour).atZone(java.time.ZoneOffset.UTC)
                .getHour(), tx));

        assertThat(report.busiestHoursOfDay()).hasSize(Math.min(5, expected.size()))
                .isSortedAccordingTo((a, b) -> Double.compare(b.meanTxBytesPerSec(), a.meanTxBytesPerSec()))
                .allSatisfy(h -> assertThat(h.meanTxBytesPerSec()).as("hour " + h.hourUtc())
                        .isCloseTo(expected.get(h.hourUtc()), within(1.0)));
    }

    @Test
    void shouldGiveTheSameLinkPercentilesFromRawPointsAsFromRollups() {
        CapacityReport raw = analysis("rp_raw").run();

        assertThat(raw.links()).hasSameSizeAs(report.links());
        for (LinkUsage rolled : report.links()) {
            LinkUsage fromRaw = raw.links().stream().filter(l -> l.node().equals(rolled.node())
                    && l.device().equals(rolled.device())).findFirst().orElseThrow();
            assertThat(fromRaw.p95()).as(rolled.node() + "/" + rolled.device()).isCloseTo(rolled.p95(), within(EPS));
        }
        assertThat(raw.idleLinks()).isEqualTo(report.idleLinks());
    }

    @Test
    void shouldPrintTablesAndJsonOnStdoutWhenRunFromTheCommandLine() throws Exception {
        Run text = cli("capacity", "--since", "7d", "--influx-url", db.url(), "--set",
                "influx.database=" + db.database());
        Run json = cli("capacity", "--since", "7d", "--json", "--influx-url", db.url(), "--set",
                "influx.database=" + db.database());

        assertThat(text.exit).isZero();
        assertThat(text.out).contains("LINKS", "NODES", "ALLOCATED BUT IDLE LINKS", "BUSIEST JOBS",
                "BUSIEST HOURS OF THE DAY", "DID RDMA HELP?", "rp_1y");
        // the RDMA section's llama-70b row: peak per NIC, expected per NIC, the share of it reached
        assertThat(text.out.lines().filter(l -> l.startsWith("llm") && l.contains("20.00 GB/s")).findFirst()
                .orElseThrow()).contains("llama-70b").containsPattern("15\\.00 GB/s +20\\.00 GB/s +75\\.0%");
        assertThat(text.out.lines().filter(l -> l.startsWith("gpu-01  mlx5_0")).findFirst().orElseThrow())
                .contains("60.0%  60.0%  60.0%  60.0%  25.00 GB/s  40.0%");
        assertThat(text.out.lines().filter(l -> l.startsWith("gpu-02  mlx5_1")).toList()).hasSize(2)
                .anySatisfy(l -> assertThat(l).contains("vision", "resnet-50"));
        assertThat(json.exit).isZero();
        JsonNode parsed = Json.MAPPER.readTree(json.out);
        assertThat(parsed.path("window").asText()).isEqualTo("7d");
        assertThat(parsed.path("links")).hasSameSizeAs(report.links());
        assertThat(parsed.path("idleLinks").get(0).path("job").asText()).isEqualTo("resnet-50");
        assertThat(parsed.path("busiestJobs").get(0).path("job").asText()).isEqualTo("llama-70b");
        assertThat(parsed.path("rdmaUse").get(0).path("job").asText()).isEqualTo("bert-large");
    }

    @Test
    void shouldExplainAndExitNonZeroWhenInfluxDbCannotBeReached() {
        Run run = cli("capacity", "--influx-url", "http://127.0.0.1:1", "--set", "influx.connect.timeout.ms=500");

        assertThat(run.exit).isEqualTo(1);
        assertThat(run.out).isEmpty();
        assertThat(run.err).contains("cannot query InfluxDB at http://127.0.0.1:1");
    }

    @Test
    void shouldRefuseAWindowShorterThanAMinute() {
        Run run = cli("capacity", "--since", "10s", "--influx-url", db.url());

        assertThat(run.exit).isEqualTo(2);
        assertThat(run.err).contains("capacity.since");
    }

    private record Run(int exit, String out, String err) {
    }

    private static Run cli(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cmd = Main.commandLine();
        cmd.setOut(new PrintWriter(out));
        cmd.setErr(new PrintWriter(err));
        int exit = cmd.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    private static LinkUsage link(Link link) {
        return report.links().stream().filter(l -> l.node().equals(link.node()) && l.device().equals(link.device()))
                .findFirst().orElseThrow(() -> new AssertionError("no " + link + " in the report"));
    }

    /** The scenario's truth: minute start → the link's utilisation in that minute, for minutes it reported. */
    private static Map<Long, Double> minuteValues(Link link) {
        Map<Long, Double> values = new LinkedHashMap<>();
        for (long minute = scenario.start(); minute <= scenario.end(); minute += 60_000) {
            if (scenario.reported(link, minute)) {
                values.put(minute, scenario.utilisation(link, minute));
            }
        }
        return values;
    }

    private static Map<Long, Double> hourlyMeans(Map<Long, Double> minutes) {
        return minutes.entrySet().stream().collect(Collectors.groupingBy(e -> e.getKey() / 3_600_000 * 3_600_000,
                TreeMap::new, Collectors.averagingDouble(Map.Entry::getValue)));
    }

    /**
     * Every hour whose true mean equals the peak: hours often tie (a constant link; a short first hour holding a whole
     * cycle of a periodic link), and then InfluxDB's naive float summation, not the data, picks one of them.
     */
    private static List<String> peakHours(Map<Long, Double> hourlyMeans, double peak) {
        return hourlyMeans.entrySet().stream().filter(e -> Math.abs(e.getValue() - peak) < EPS)
                .map(e -> Instant.ofEpochMilli(e.getKey()).toString()).toList();
    }

    private static double jobMean(String job) {
        Map<Long, Double> bytes = new TreeMap<>();
        ClusterScenario.ALLOCATION.forEach((link, rank) -> {
            if (rank.job().equals(job)) {
                minuteValues(link).forEach((minute, u) -> bytes.merge(minute, u * 1.98 * ClusterScenario.RATE,
                        Double::sum));
            }
        });
        return bytes.values().stream().mapToDouble(Double::doubleValue).average().orElseThrow();
    }

    /** InfluxDB's percentile(): the nearest-rank value. */
    private static double percentile(List<Double> values, double pct) {
        List<Double> sorted = values.stream().sorted().toList();
        int index = (int) Math.floor(sorted.size() * pct / 100 + 0.5) - 1;
        return sorted.get(Math.max(0, Math.min(index, sorted.size() - 1)));
    }
}
