package io.rdmamon.access;

/**
 * Kafka turned a role away for good: wrong credentials, or an ACL missing. Its message is the one line that says so
 * ({@link KafkaAccess#describe}); the command line prints it and exits with {@link #EXIT_CODE}, so that a supervisor
 * sees a failing role, not one that looks alive and does nothing.
 */
public final class AccessRefusedException extends RuntimeException {
    /** Exit status of a role that Kafka refused (a configuration error is 2). */
    public static final int EXIT_CODE = 3;

    public AccessRefusedException(String line) {
        super(line, null, false, false);
    }

    /** {@code error} as an AccessRefusedException when Kafka refused {@code access}, else {@code error} itself. */
    public static RuntimeException of(KafkaAccess access, RuntimeException error) {
        return access.describe(error).<RuntimeException>map(AccessRefusedException::new).orElse(error);
    }
}
