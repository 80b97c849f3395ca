package io.rdmamon.jobs;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.rdmamon.model.PortSample;

/**
 * A port's traffic as seen by one job holding its device: {@code holder} says which of the job's ranks use the device,
 * {@code sharedBy} how many Running jobs held it at the sample's time (more than 1: this job's part is an estimate).
 */
public record JobSample(PortTraffic traffic, Holder holder, int sharedBy) {
    /**
     * As the {@code node-ticks} changelog holds it: releases before {@link PortTraffic} wrote the whole sample, as
     * {@code sample}, and an upgraded app restores the passes they left open.
     */
    @JsonCreator
    static JobSample fromJson(@JsonProperty("traffic") PortTraffic traffic, @JsonProperty("sample") PortSample sample,
                              @JsonProperty("holder") Holder holder, @JsonProperty("sharedBy") int sharedBy) {
        return new JobSample(traffic != null || sample == null ? traffic : PortTraffic.of(sample), holder, sharedBy);
    }

    public boolean shared() {
        return sharedBy > 1;
    }
}
