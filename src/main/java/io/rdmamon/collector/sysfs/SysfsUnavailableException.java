package io.rdmamon.collector.sysfs;

/** The sysfs root is not there or is not a sysfs tree: nothing can be sampled until the operator fixes the mount. */
public final class SysfsUnavailableException extends RuntimeException {
    public SysfsUnavailableException(String message) {
        super(message);
    }
}
