package io.rdmamon.collector.eadm;

import io.rdmamon.collector.EadmRate;
import io.rdmamon.model.Json;
import io.rdmamon.model.PortSample;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class EadmPortSamplesTest {
    private final EadmPortSamples samples = new EadmPortSamples();
    private final EadmRate rate = new EadmRate("erdma_0", 914.89 * 1024 * 1024, 150423.0, 914.66 * 1024 * 1024,
            null, 0L);

    @Test
    void shouldMapRateToPortOneWithSysfsAttributesWhenKnown() {
        PortAttributes attributes = new PortAttributes("ACTIVE", "LinkUp", "Ethernet", 25_000_000_000L);

        PortSample sample = samples.toPortSample("node-1", rate, 1_700_000_000_000L, attributes);

        assertThat(sample).isEqualTo(new PortSample(PortSample.VERSION, "node-1", "erdma_0", 1, 1_700_000_000_000L, 0,
                "eadm", "ACTIVE", "LinkUp", "Ethernet", 25_000_000_000L, rate.txBytesPerSec(), rate.rxBytesPerSec(),
                null, 150423.0, null, null));
        assertThat(sample.key()).isEqualTo("node-1/erdma_0/1");
        assertThat(sample.errors()).isEmpty();
    }

    @Test
    void shouldLeaveAttributesAndUnknownPacketsNullWhenSysfsKnowsNothing() {
        PortSample sample = samples.toPortSample("node-1", rate, 1_000L, PortAttributes.UNKNOWN);

        String json = Json.toString(sample);

        assertThat(json).contains("\"source\":\"eadm\"", "\"state\":null", "\"rateBytesPerSec\":null",
                "\"txPacketsPerSec\":null", "\"errors\":{}");
    }

    @Test
    void shouldMeasureIntervalPerDeviceSincePreviousSampleWhenPublishedAgain() {
        EadmRate other = new EadmRate("erdma_1", 1, 1.0, 1, 1.0, 0L);

        assertThat(samples.toPortSample("n", rate, 10_000L, PortAttributes.UNKNOWN).intervalMs()).isZero();
        assertThat(samples.toPortSample("n", other, 10_500L, PortAttributes.UNKNOWN).intervalMs()).isZero();
        assertThat(samples.toPortSample("n", rate, 11_000L, PortAttributes.UNKNOWN).intervalMs()).isEqualTo(1_000);
        assertThat(samples.toPortSample("n", rate, 10_900L, PortAttributes.UNKNOWN).intervalMs())
                .as("a clock stepping back gives no negative interval").isZero();

        samples.forget("erdma_0");
        assertThat(samples.toPortSample("n", rate, 12_000L, PortAttributes.UNKNOWN).intervalMs()).isZero();
    }
}
