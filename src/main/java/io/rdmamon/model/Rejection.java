package io.rdmamon.model;

/**
 * Why a record breaks its topic's contract.
 *
 * @param code    one of the short fixed codes below: few enough to tag a metric with (the dead-letter counters
 *                count by it)
 * @param message for people and the dead-letter record: names the field and its value
 */
public record Rejection(String code, String message) {
    public static final String EMPTY = "empty";
    public static final String NOT_JSON = "not_json";
    public static final String NOT_OBJECT = "not_object";
    public static final String UNKNOWN_VERSION = "unknown_version";
    public static final String MISSING_FIELD = "missing_field";
    public static final String WRONG_TYPE = "wrong_type";
    /** A text field with a value outside its fixed set (job state, alert status). */
    public static final String UNKNOWN_VALUE = "unknown_value";
    /** A time before {@link ContractChecks#MIN_TIME}, from {@link ContractChecks#MAX_TIME} on, or too far ahead. */
    public static final String IMPLAUSIBLE_TIME = "implausible_time";
    public static final String NEGATIVE = "negative";
    public static final String NOT_FINITE = "not_finite";
    /** A rate above {@link ContractLimits#rateMultiple()} times the port's nominal rate, or above the ceiling. */
    public static final String RATE_TOO_HIGH = "rate_too_high";
    /** A node, device, interface or pod name that cannot be one (empty, with '/', whitespace or control chars). */
    public static final String MALFORMED_NAME = "malformed_name";
    /** A port below 1, a rank below 0 or not below the world size, a world size below 1. */
    public static final String OUT_OF_RANGE = "out_of_range";
    /** The record does not fit its Kafka key (e.g. a job under another uid). */
    public static final String KEY_MISMATCH = "key_mismatch";
    /** No Kafka key where order depends on it (samples on a topic of several partitions). */
    public static final String NO_KEY = "no_key";
    /** A null value where the topic has no meaning for one. */
    public static final String TOMBSTONE = "tombstone";
}
