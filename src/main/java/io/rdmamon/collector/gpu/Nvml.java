package io.rdmamon.collector.gpu;

import java.util.List;

/**
 * The NVML calls {@link NvmlReader} makes: the driver's library through JNA ({@link JnaNvml}), or a test's stand-in
 * that hangs, crashes or appears late. Every call may block in the kernel for as long as the driver does; only the
 * reader's one thread makes them.
 */
interface Nvml {
    /**
     * Loads the library (once; no call into the driver, so it cannot hang); null when it is loaded, otherwise why it
     * cannot be (no {@code libnvidia-ml.so.1}, or JNA's native part does not load).
     */
    String load();

    /**
     * Loads the library (once) and initialises NVML; returns the uuid of every GPU, by index. {@link NvmlException} when
     * there is no library ({@link NvmlException#unloadable()}), no driver, no GPU, or a GPU cannot be opened.
     */
    List<String> open() throws NvmlException;

    /** One reading of GPU {@code index}: a value the GPU does not give is null; a failing GPU gives {@code error}. */
    GpuReading read(int index, String uuid, List<String> migDevices);

    /** The pids of the compute processes on GPU {@code index} (on all its MIG devices). */
    List<Long> processes(int index) throws NvmlException;

    /** The uuids of GPU {@code index}'s MIG devices, empty when MIG is off or unsupported. */
    List<String> migDevices(int index) throws NvmlException;

    /** Releases NVML ({@code nvmlShutdown}); {@link #open} may follow. */
    void close();

    /** An NVML call that failed: its return code and NVML's words for it. */
    final class NvmlException extends Exception {
        /** Not an NVML code: the library or JNA's native part could not be loaded. */
        static final int UNLOADABLE = -1;
        static final int DRIVER_NOT_LOADED = 9;
        static final int GPU_IS_LOST = 15;

        private final int code;

        NvmlException(int code, String message) {
            super(message);
            this.code = code;
        }

        int code() {
            return code;
        }

        boolean unloadable() {
            return code == UNLOADABLE;
        }
    }
}
