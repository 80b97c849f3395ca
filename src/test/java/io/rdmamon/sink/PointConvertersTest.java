package io.rdmamon.sink;

import io.rdmamon.model.Alert;
import io.rdmamon.model.HostIfaceSample;
import io.rdmamon.model.JobBandwidth;
import io.rdmamon.model.LinkHealth;
import io.rdmamon.model.PortSample;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Exact line protocol for every record type: tags, typed fields, omitted unknowns, event time in ms. */
class PointConvertersTest {
    private static final long TS = 1_767_225_600_000L;

    static List<String> lines(List<String> lines) {
        return lines;
    }

    @Test
    void shouldWriteAPortSampleAndOnePointPerErrorCounterWhenRatesAreKnown() {
        PortSample s = new PortSample(1, "gpu-07", "erdma_0", 1, TS, 1000, "sysfs", "ACTIVE", "LinkUp", "Ethernet",
                25_000_000_000L, 9.5942E8, 9.5933E8, 147128.0, null,
                Map.of("tx_bps_limit_drop_cnt", 12L), Map.of("drop", 12L));

        assertThat(lines(new PortSamplePoints().toLines(s))).containsExactly(
                "rdma_port,device=erdma_0,link_layer=Ethernet,node=gpu-07,port=1,source=sysfs active=1i,"
                        + "interval_seconds=1.0,phys_state=\"LinkUp\",rate_bytes_per_sec=25000000000i,"
                        + "rx_bytes_per_sec=959330000.0,state=\"ACTIVE\",tx_bytes_per_sec=959420000.0,"
                        + "tx_packets_per_sec=147128.0 " + TS,
                "rdma_port_errors,counter=tx_bps_limit_drop_cnt,device=erdma_0,error_class=drop,node=gpu-07,port=1,"
                        + "source=sysfs increment=12i " + TS);
    }

    @Test
    void shouldOmitUnknownRatesInsteadOfWritingZeroWhenTheSampleIsTheFirst() {
        PortSample first = new PortSample(1, "n1", "mlx5_0", 1, TS, 0, "sysfs", null, null, null, null, null, null,
                null, null, Map.of("link_downed", 1L, "vendor_counter", 3L), null);

        assertThat(lines(new PortSamplePoints().toLines(first))).containsExactlyInAnyOrder(
                "rdma_port,device=mlx5_0,node=n1,port=1,source=sysfs interval_seconds=0.0 " + TS,
                "rdma_port_errors,counter=link_downed,device=mlx5_0,error_class=linkDown,node=n1,port=1,source=sysfs "
                        + "increment=1i " + TS,
                "rdma_port_errors,counter=vendor_counter,device=mlx5_0,error_class=other,node=n1,port=1,source=sysfs "
                        + "increment=3i " + TS);
    }

    @Test
    void shouldWriteHostInterfaceTrafficAndErrorIncrements() {
        HostIfaceSample s = new HostIfaceSample(1, "gpu-07", "eth0", TS, 500, 1.25E8, 2.5E7, null, 1000.5,
                Map.of("rx_dropped", 4L));

        assertThat(lines(new HostIfacePoints().toLines(s))).containsExactly(
                "host_iface,iface=eth0,node=gpu-07 interval_seconds=0.5,rx_bytes_per_sec=25000000.0,"
                        + "rx_packets_per_sec=1000.5,tx_bytes_per_sec=125000000.0 " + TS,
                "host_iface_errors,counter=rx_dropped,iface=eth0,node=gpu-07 increment=4i " + TS);
    }

    @Test
    void shouldWriteJobBandwidthAtTheWindowStartWithOnePointPerRank() {
        JobBandwidth b = new JobBandwidth(1, "uid-1", "llama", "team-a", TS, TS + 10_000, 3.0E9, 1.0E9, 2, 2,
                1.5E9, 2.0E9, 2.5E9, false, List.of(
                new JobBandwidth.RankBandwidth(0, "gpu-01", 1.0E9, 0.5E9, 0.375, false),
                new JobBandwidth.RankBandwidth(1, "gpu-02", 2.0E9, 0.5E9, 0.625, true)), 1.0E9, 0.8, 1.25E9, 2.5E9);

        assertThat(lines(new JobBandwidthPoints().toLines(b))).containsExactly(
                "job_bandwidth,job=llama,job_uid=uid-1,namespace=team-a bytes_per_sec=4000000000.0,estimated=false,"
                        + "expected_nic_bytes_per_sec=2500000000.0,host_bytes_per_sec=1000000000.0,"
                        + "nic_bytes_per_sec=1250000000.0,rank_max_bytes_per_sec=2500000000.0,rank_median_bytes_per_sec=2000000000.0,"
                        + "rank_min_bytes_per_sec=1500000000.0,ranks_expected=2i,ranks_reporting=2i,rdma_share=0.8,"
                        + "rx_bytes_per_sec=1000000000.0,tx_bytes_per_sec=3000000000.0,window_seconds=10.0 " + TS,
                "job_rank_bandwidth,job=llama,job_uid=uid-1,namespace=team-a,node=gpu-01,rank=0 "
                        + "bytes_per_sec=1500000000.0,estimated=false,rx_bytes_per_sec=500000000.0,share=0.375,"
                        + "tx_bytes_per_sec=1000000000.0 " + TS,
                "job_rank_bandwidth,job=llama,job_uid=uid-1,namespace=team-a,node=gpu-02,rank=1 "
                        + "bytes_per_sec=2500000000.0,estimated=true,rx_bytes_per_sec=500000000.0,share=0.625,"
                        + "tx_bytes_per_sec=2000000000.0 " + TS);
    }

    @Test
    void shouldSumErrorClassesIntoFieldsAndTakeTheLargerUtilisationWhenWritingLinkHealth() {
        LinkHealth h = new LinkHealth(1, "gpu-07", "erdma_0", 1, TS, "4: ACTIVE", "LinkUp", 25_000_000_000L, 2.5E9,
                null, 0.1, null, Map.of("drop", 3L, "linkDown", 1L, "futureClass", 2L), "uid-1", "team-a", 2);

        assertThat(lines(new LinkHealthPoints().toLines(h))).containsExactly(
                "link_health,device=erdma_0,job_uid=uid-1,namespace=team-a,node=gpu-07,port=1 active=1i,"
                        + "errors_drop=3i,errors_link_down=1i,errors_other=2i,phys_state=\"LinkUp\","
                        + "rate_bytes_per_sec=25000000000i,shared_by=2i,state=\"4: ACTIVE\",tx_bytes_per_sec=2500000000.0,"
                        + "tx_utilisation=0.1,utilisation=0.1 " + TS);
    }

    @Test
    void shouldWriteNoPointWhenEveryFieldIsUnknown() {
        LinkHealth empty = new LinkHealth(1, "gpu-07", "erdma_0", 1, TS, null, null, null, null, null, null, null,
                Map.of(), null, null);

        assertThat(new LinkHealthPoints().toLines(empty)).isEmpty();
    }

    @Test
    void shouldKeepTheAlertIdAsAFieldAndStampFiringAtDetectionAndResolvedAtTheEnd() {
        Alert firing = new Alert(1, "STALLED_SYNC:uid-1:1767225590000", Alert.STALLED_SYNC, Alert.FIRING, "critical",
                "llama", "team-a", null, null, null, TS - 10_000, TS, null, "job llama stalled", Map.of("uid", "uid-1",
                "ranks", "3"));
        Alert resolved = new Alert(1, firing.id(), Alert.STALLED_SYNC, Alert.RESOLVED, "critical", "llama", "team-a",
                null, null, null, TS - 10_000, TS, TS + 60_000, "job llama recovered", Map.of("ranks", "4,5"));

        assertThat(lines(new AlertPoints().toLines(firing))).containsExactly(
                "alert,job=llama,job_uid=uid-1,namespace=team-a,rank=3,severity=critical,status=firing,"
                        + "type=STALLED_SYNC detected_at_ms=" + TS + "i,detection_delay_seconds=10.0,firing=1i,"
                        + "id=\"STALLED_SYNC:uid-1:1767225590000\",ranks=\"3\",starts_at_ms=" + (TS - 10_000) + "i,"
                        + "summary=\"job llama stalled\" " + TS);
        assertThat(lines(new AlertPoints().toLines(resolved))).singleElement().asString()
                .startsWith("alert,job=llama,namespace=team-a,severity=critical,status=resolved,type=STALLED_SYNC ")
                .contains("duration_seconds=70.0", "ends_at_ms=" + (TS + 60_000) + "i", "firing=0i", "ranks=\"4,5\"")
                .doesNotContain("rank=")
                .endsWith(" " + (TS + 60_000));
    }

    @Test
    void shouldEscapeLineProtocolSpecialsWhenNamesContainThem() {
        Alert a = new Alert(1, "id \"1\"", "LINK_DOWN", Alert.FIRING, "warning", null, null, "gpu 07,rack=a\\b",
                "mlx5_0", 1, TS, TS, null, "port \"down\"\nsee C:\\logs", Map.of("ranks", "not a number"));

        assertThat(lines(new AlertPoints().toLines(a))).singleElement().asString()
                .startsWith("alert,device=mlx5_0,node=gpu\\ 07\\,rack\\=a/b,port=1,severity=warning,status=firing,")
                .contains("id=\"id \\\"1\\\"\"", "summary=\"port \\\"down\\\" see C:\\\\logs\"")
                .doesNotContain("rank=");
    }

    @Test
    void shouldRejectRecordsThatBreakTheContract() {
        PortSample future = new PortSample(2, "n", "d", 1, TS, 0, "sysfs", null, null, null, null, null, null, null,
                null, null, null);
        PortSample noNode = new PortSample(1, null, "d", 1, TS, 0, "sysfs", null, null, null, null, null, null, null,
                null, null, null);
        HostIfaceSample noTime = new HostIfaceSample(1, "n", "eth0", 0, 0, 1.0, 1.0, null, null, null);
        Alert badStatus = new Alert(1, "i", "LINK_DOWN", "pending", null, null, null, null, null, null, TS, TS, null,
                null, null);

        assertThatThrownBy(() -> new PortSamplePoints().toLines(future)).hasMessageContaining("version v=2");
        assertThatThrownBy(() -> new PortSamplePoints().toLines(noNode)).hasMessage("missing node");
        assertThatThrownBy(() -> new HostIfacePoints().toLines(noTime)).hasMessageContaining("missing or invalid ts");
        assertThatThrownBy(() -> new AlertPoints().toLines(badStatus)).hasMessageContaining("firing or resolved");
    }

    @Test
    void shouldRecogniseEverySpellingOfAnActivePort() {
        assertThat(PortSamplePoints.activeFlag("ACTIVE")).isEqualTo(1L);
        assertThat(PortSamplePoints.activeFlag("4: ACTIVE")).isEqualTo(1L);
        assertThat(PortSamplePoints.activeFlag("PORT_ACTIVE (4)")).isEqualTo(1L);
        assertThat(PortSamplePoints.activeFlag("1: DOWN")).isEqualTo(0L);
        assertThat(PortSamplePoints.activeFlag("ACTIVE_DEFER")).isEqualTo(0L);
        assertThat(PortSamplePoints.activeFlag(null)).isNull();
    }
}
