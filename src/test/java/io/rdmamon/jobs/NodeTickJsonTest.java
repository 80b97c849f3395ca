package io.rdmamon.jobs;

import io.rdmamon.model.Json;
import io.rdmamon.model.JobRecord;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The {@code node-ticks} store's JSON: an open node pass survives a commit, a restart and an upgrade. */
class NodeTickJsonTest {
    private static final Holder HOLDER = new Holder("uid-1", "llama", "team-a",
            List.of(new JobRecord.Rank(1, "llama-worker-0", "gpu-2", List.of("mlx5_0"))), 4);
    private static final PortTraffic TRAFFIC = new PortTraffic("gpu-2", "mlx5_0", 1, 1_700_000_001_000L, 1000,
            25_000_000_000L, 1.5e9, 2.5e9);

    @Test
    void shouldReadBackWhatItWrites() throws Exception {
        NodeTick tick = new NodeTick(1_700_000_001_000L, 1,
                List.of(new NodeTick.Routed("uid-1", JobEvent.of(new JobSample(TRAFFIC, HOLDER, 2)))));

        NodeTick read = Json.MAPPER.readValue(Json.toBytes(tick), NodeTick.class);

        assertThat(read.ts()).isEqualTo(tick.ts());
        assertThat(read.inputs()).isEqualTo(tick.inputs());
        assertThat(read.events()).isEqualTo(tick.events());
    }

    /** As the releases before {@link PortTraffic} wrote it (commit fc3db37): the port's whole sample. */
    @Test
    void shouldReadThePassesThatEarlierReleasesLeftOpen() throws Exception {
        String earlier = "{\"ts\":1700000001000,\"inputs\":1,\"events\":[{\"uid\":\"uid-1\",\"event\":{\"port\":"
                + "{\"sample\":{\"v\":1,\"node\":\"gpu-2\",\"device\":\"mlx5_0\",\"port\":1,\"ts\":1700000001000,"
                + "\"intervalMs\":1000,\"source\":\"sysfs\",\"state\":\"ACTIVE\",\"physState\":\"LinkUp\","
                + "\"linkLayer\":\"Ethernet\",\"rateBytesPerSec\":25000000000,\"txBytesPerSec\":1.5E9,"
                + "\"rxBytesPerSec\":2.5E9,\"txPacketsPerSec\":1000000.0,\"rxPacketsPerSec\":2000000.0,"
                + "\"errors\":{}},\"holder\":{\"uid\":\"uid-1\",\"job\":\"llama\",\"namespace\":\"team-a\","
                + "\"ranks\":[{\"rank\":1,\"pod\":\"llama-worker-0\",\"node\":\"gpu-2\",\"devices\":[\"mlx5_0\"]}],"
                + "\"expectedRanks\":4},\"sharedBy\":1},\"host\":null,\"lifecycle\":null}}]}";

        NodeTick tick = Json.MAPPER.readValue(earlier, NodeTick.class);

        assertThat(tick.events()).containsExactly(
                new NodeTick.Routed("uid-1", JobEvent.of(new JobSample(TRAFFIC, HOLDER, 1))));
    }
}
