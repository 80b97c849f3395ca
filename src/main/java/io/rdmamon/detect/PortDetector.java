package io.rdmamon.detect;

import io.rdmamon.jobs.AssignedSample;

/** A detector whose state is kept per port ({@code node/device/port}), fed with assigned port samples. */
abstract class PortDetector<S> implements Detector<AssignedSample, S> {
    private final String type;
    private final Class<S> stateType;

    PortDetector(String type, Class<S> stateType) {
        this.type = type;
        this.stateType = stateType;
    }

    @Override
    public final String type() {
        return type;
    }

    @Override
    public final Class<S> stateType() {
        return stateType;
    }

    /**
     * The port: decode keys every port sample {@code node/device/port} ({@link io.rdmamon.model.PortSample#key()}) and
     * nothing re-keys them before the detectors, so the record's key is that string, its hash already computed,
     * instead of a new one built per sample and detector.
     */
    @Override
    public final String stateKey(String recordKey, AssignedSample value) {
        return recordKey != null ? recordKey : value.sample().key();
    }
}
