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

    /** The port: samples are keyed node/device on this stream, and one task owns all ports of a device. */
    @Override
    public final String stateKey(String recordKey, AssignedSample value) {
        return value.sample().key();
    }
}
