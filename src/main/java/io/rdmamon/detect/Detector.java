package io.rdmamon.detect;

/**
 * A detector: folds one input record into the state it keeps per subject (a port, a job) and says which conditions
 * hold now. It knows nothing about alerts or stores: {@link DetectorProcessor} (or {@link PortJudge}, for the
 * {@link PortDetector}s) keeps its state in a changelogged store and turns its {@link Observation}s into one firing and
 * one resolved {@link io.rdmamon.model.Alert} per incident.
 *
 * @param <V> the input record
 * @param <S> the state kept per {@link #stateKey}; JSON-serialisable
 */
public interface Detector<V, S> {
    /** The alert type ({@link io.rdmamon.model.Alert#STALLED_SYNC}, ...); it also names the detector's stores. */
    String type();

    Class<S> stateType();

    /**
     * Which state the record belongs to (e.g. {@code node/device/port}, a job uid); null skips the record. It must be
     * a function of the record key or of something that partitions with it, so one task owns each state. By default
     * the record key itself (the job detectors read streams keyed by job uid).
     */
    default String stateKey(String recordKey, V value) {
        return recordKey;
    }

    /** Folds the record (event time {@code timestamp}) into {@code state} (null the first time). */
    Result<S> inspect(S state, V value, long timestamp);

    /**
     * Called for every state as stream time passes (every {@link DetectorProcessor#EXPIRY_INTERVAL}): a chance to
     * drop the state of subjects that went away. Null: nothing to do.
     */
    default Result<S> expire(S state, long streamTime) {
        return null;
    }
}
