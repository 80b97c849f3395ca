package io.rdmamon.jobs;

/**
 * A port's traffic as seen by one job holding its device: {@code holder} says which of the job's ranks use the device,
 * {@code sharedBy} how many Running jobs held it at the sample's time (more than 1: this job's part is an estimate).
 */
public record JobSample(PortTraffic traffic, Holder holder, int sharedBy) {
    public boolean shared() {
        return sharedBy > 1;
    }
}
