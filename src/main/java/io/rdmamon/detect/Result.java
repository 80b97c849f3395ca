package io.rdmamon.detect;

import java.util.List;

/**
 * What a detector concluded from one record: its new state (null: forget the subject), the conditions it observed,
 * and optionally a time at which every open incident of the subject ends (a job ended, a port went away).
 */
public record Result<S>(S state, List<Observation> observations, Long closeAllAt) {
    public Result {
        observations = observations == null ? List.of() : List.copyOf(observations);
    }

    public static <S> Result<S> of(S state, Observation... observations) {
        return new Result<>(state, List.of(observations), null);
    }

    public static <S> Result<S> of(S state, List<Observation> observations) {
        return new Result<>(state, observations, null);
    }

    /** Keeps {@code state} and resolves every open incident of the subject at {@code at}. */
    public static <S> Result<S> closeAll(S state, long at) {
        return new Result<>(state, List.of(), at);
    }
}
