package io.rdmamon.collector.podresources;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmamon.collector.podresources.v1.ListPodResourcesResponse;
import io.rdmamon.collector.podresources.v1.PodResources;
import io.rdmamon.model.Json;
import io.rdmamon.model.PodDeviceMap;
import io.rdmamon.model.PodDeviceMap.PodDevices;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

import static io.rdmamon.collector.podresources.FakeKubelet.held;
import static io.rdmamon.collector.podresources.FakeKubelet.pod;
import static org.assertj.core.api.Assertions.assertThat;

class DeviceAttributionTest {
    @TempDir
    Path sysfs;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    /** A node with two eRDMA devices, two ConnectX PFs, and one ConnectX VF whose RDMA device is mlx5_3. */
    @BeforeEach
    void node() throws IOException {
        for (String device : List.of("erdma_0", "erdma_1", "mlx5_0", "mlx5_1", "mlx5_3")) {
            Files.createDirectories(sysfs.resolve("class/infiniband").resolve(device));
        }
        Files.createDirectories(sysfs.resolve("bus/pci/devices/0000:3b:02.1/infiniband/mlx5_3"));
        Files.createDirectories(sysfs.resolve("bus/pci/devices/0000:3b:02.2/net/eth7"));
    }

    private PodDeviceMap map(Pattern sharedDevices, PodResources... pods) {
        DeviceAttribution attribution = new DeviceAttribution(sysfs, Set.of("aliyun/erdma"), Set.of("rdma/hca"),
                Set.of("nvidia.com/gpu"), sharedDevices, registry);
        return attribution.map("node-a", 1_000L,
                ListPodResourcesResponse.newBuilder().addAllPodResources(List.of(pods)).build());
    }

    @Test
    void shouldNameThePhysicalDeviceWhenPodHoldsVirtualErdmaIds() {
        PodDeviceMap map = map(null,
                pod("train", "bert-worker-1", held("aliyun/erdma", "erdma_1/17"), held("aliyun/erdma", "erdma_0/3")),
                pod("train", "bert-master-0", held("aliyun/erdma", "erdma_0/199", "erdma_0/5")));

        assertThat(map.node()).isEqualTo("node-a");
        assertThat(map.ts()).isEqualTo(1_000L);
        assertThat(map.pods()).containsExactly(
                new PodDevices("train", "bert-master-0", List.of("erdma_0"), false, List.of()),
                new PodDevices("train", "bert-worker-1", List.of("erdma_0", "erdma_1"), false, List.of()));
    }

    @Test
    void shouldGiveSharedHoldersTheMatchingDevicesMarkedSharedWhenThePatternIsSet() {
        PodDeviceMap map = map(Pattern.compile("mlx5_[01]"), pod("ml", "a", held("rdma/hca", "1")));

        assertThat(map.pods()).containsExactly(new PodDevices("ml", "a", List.of("mlx5_0", "mlx5_1"), true, List.of()));
    }

    @Test
    void shouldListSharedResourceAsUnresolvedWithNoDeviceWhenTheSharedDevicesAreUnknown() {
        PodDeviceMap map = map(null, pod("ml", "a", held("rdma/hca", "1")));

        assertThat(map.pods()).containsExactly(new PodDevices("ml", "a", List.of(), false, List.of("rdma/hca")));
    }

    @Test
    void shouldFollowSysfsFromTheVfPciAddressWhenTheResourceIsSriov() {
        PodDeviceMap map = map(null,
                pod("ml", "vf-rdma", held("intel.com/sriov_rdma", "0000:3B:02.1")),
                pod("ml", "vf-netdev-only", held("intel.com/sriov_netdevice", "0000:3b:02.2")),
                pod("ml", "vf-unknown-address", held("intel.com/sriov_rdma", "0000:99:00.1")));

        assertThat(map.pods()).containsExactly(new PodDevices("ml", "vf-rdma", List.of("mlx5_3"), false, List.of()));
    }

    @Test
    void shouldListTheGpuUuidsOfPodsHoldingNvidiaGpusAndLeaveOutPodsWithNeither() {
        PodDeviceMap map = map(null,
                pod("ml", "gpu-only", held("nvidia.com/gpu", "GPU-fa2badef-49a9-1483-88ed-34afc018aeb1",
                        "GPU-74f94dfb-ad46-d469-fbb0-c0b2e470c1d7")),
                pod("ml", "both", held("nvidia.com/gpu", "GPU-0b0b0b"), held("aliyun/erdma", "erdma_1/0")),
                pod("ml", "fpga", held("example.com/fpga", "fpga-0")));

        assertThat(map.pods()).containsExactly(
                new PodDevices("ml", "both", List.of("erdma_1"), false, List.of(), List.of("GPU-0b0b0b")),
                new PodDevices("ml", "gpu-only", List.of(), false, List.of(), List.of(
                        "GPU-74f94dfb-ad46-d469-fbb0-c0b2e470c1d7", "GPU-fa2badef-49a9-1483-88ed-34afc018aeb1")));
        // the record as jobs watch reads it: gpus is written only where a pod holds some
        assertThat(new String(Json.toBytes(map), StandardCharsets.UTF_8))
                .contains("\"gpus\":[\"GPU-0b0b0b\"]").doesNotContain("\"gpus\":[]");
    }

    @Test
    void shouldCountAndListAsUnresolvedWhenAnErdmaIdNamesNoDevice() {
        PodDeviceMap map = map(null, pod("ml", "odd", held("aliyun/erdma", "../../etc/17", "erdma_0/2", "")));

        assertThat(map.pods()).containsExactly(
                new PodDevices("ml", "odd", List.of("erdma_0"), false, List.of("aliyun/erdma")));
        assertThat(registry.get("rdmamon.podresources.invalid.ids").counter().count()).isEqualTo(2);
    }
}
