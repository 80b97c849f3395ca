package io.rdmamon.detect;

import io.rdmamon.jobs.AssignedSample;

/**
 * A detector whose state is kept per port ({@code node/device/port}), fed with assigned port samples by
 * {@link PortJudge}.
 */
public abstract class PortDetector<S> implements Detector<AssignedSample, S> {
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

    /** A port's state changes only with its own samples: nothing to expire. */
    @Override
    public final Result<S> expire(S state, long streamTime) {
        return null;
    }
}
