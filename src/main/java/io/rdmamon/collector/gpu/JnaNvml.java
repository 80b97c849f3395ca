package io.rdmamon.collector.gpu;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * NVML ({@code libnvidia-ml.so.1}, installed with every NVIDIA driver) through JNA: the fields of {@link GpuReading},
 * the compute processes and the MIG devices of each GPU, in the collector's own process. nvidia-smi reads the same
 * library, but through a process per reading.
 *
 * <p>A value NVML does not have for this GPU ({@code NOT_SUPPORTED}, {@code NO_DATA}, {@code NO_PERMISSION}) is null,
 * as nvidia-smi's {@code [N/A]}; any other failure ({@code GPU_IS_LOST}, {@code UNKNOWN}, ...) is null too, and the
 * reading's {@code error} names it. On a GPU in MIG mode NVML gives no whole-GPU utilization (NOT_SUPPORTED): null.
 */
final class JnaNvml implements Nvml {
    private static final int SUCCESS = 0;
    private static final int NOT_SUPPORTED = 3;
    private static final int NO_PERMISSION = 4;
    private static final int NOT_FOUND = 6;
    private static final int INSUFFICIENT_SIZE = 7;
    private static final int NO_DATA = 21;
    private static final int CLOCK_SM = 1;
    private static final int MIG_ENABLED = 1;
    /** NVML_DEVICE_UUID_V2_BUFFER_SIZE. */
    private static final int UUID_BUFFER = 96;
    /** nvmlProcessInfo_t of the _v3 call: unsigned pid, (pad), unsigned long long usedGpuMemory, two unsigned ids. */
    private static final int PROCESS_INFO_BYTES = 24;

    /** The C functions used, as NVML's header declares them (unsigned int as int, nvmlDevice_t as Pointer). */
    interface Library extends com.sun.jna.Library {
        int nvmlInit_v2();

        int nvmlShutdown();

        String nvmlErrorString(int result);

        int nvmlDeviceGetCount_v2(int[] count);

        int nvmlDeviceGetHandleByIndex_v2(int index, PointerByReference device);

        int nvmlDeviceGetUUID(Pointer device, byte[] uuid, int length);

        /** nvmlUtilization_t: unsigned int gpu, memory. */
        int nvmlDeviceGetUtilizationRates(Pointer device, int[] utilization);

        int nvmlDeviceGetPowerUsage(Pointer device, int[] milliwatts);

        int nvmlDeviceGetClockInfo(Pointer device, int type, int[] mhz);

        int nvmlDeviceGetComputeRunningProcesses_v3(Pointer device, int[] count, Pointer infos);

        int nvmlDeviceGetMigMode(Pointer device, int[] current, int[] pending);

        int nvmlDeviceGetMaxMigDeviceCount(Pointer device, int[] count);

        int nvmlDeviceGetMigDeviceHandleByIndex(Pointer device, int index, PointerByReference migDevice);
    }

    private final String libraryName;
    private Library lib;
    private List<Pointer> devices = List.of();
    private Memory processInfos = new Memory(64L * PROCESS_INFO_BYTES);
    // one reading's out-parameters, reused: only the reader's thread calls
    private final int[] pair = new int[2];
    private final int[] one = new int[1];
    private final int[] other = new int[1];

    /** {@code libraryName}: a name the dynamic linker finds ({@code libnvidia-ml.so.1}) or a path. */
    JnaNvml(String libraryName) {
        this.libraryName = libraryName;
    }

    @Override
    public String load() {
        try {
            loadLibrary();
            return null;
        } catch (NvmlException e) {
            return e.getMessage();
        }
    }

    private void loadLibrary() throws NvmlException {
        if (lib == null) {
            try {
                lib = Native.load(libraryName, Library.class);
            } catch (LinkageError e) {
                // UnsatisfiedLinkError: no such library; NoClassDefFoundError: JNA's own native part did not load
                String why = String.valueOf(e.getMessage()).lines().findFirst().orElse("");
                throw new NvmlException(NvmlException.UNLOADABLE, "cannot load " + libraryName + ": "
                        + (why.length() > 200 ? why.substring(0, 200) + "..." : why));
            }
        }
    }

    @Override
    public List<String> open() throws NvmlException {
        loadLibrary();
        check(lib.nvmlInit_v2(), "nvmlInit");
        check(lib.nvmlDeviceGetCount_v2(one), "nvmlDeviceGetCount");
        int count = one[0];
        List<Pointer> handles = new ArrayList<>(count);
        List<String> uuids = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            PointerByReference handle = new PointerByReference();
            check(lib.nvmlDeviceGetHandleByIndex_v2(i, handle), "nvmlDeviceGetHandleByIndex(" + i + ")");
            handles.add(handle.getValue());
            uuids.add(uuid(handle.getValue()));
        }
        devices = handles;
        return uuids;
    }

    @Override
    public GpuReading read(int index, String uuid, List<String> migDevices) {
        Pointer device = devices.get(index);
        Errors errors = new Errors();
        int rc = lib.nvmlDeviceGetUtilizationRates(device, pair);
        Double utilization = errors.value(rc, pair[0]);
        Double memory = errors.value(rc, pair[1]);
        rc = lib.nvmlDeviceGetPowerUsage(device, one);
        Double watts = errors.value(rc, Integer.toUnsignedLong(one[0]) / 1000.0);
        rc = lib.nvmlDeviceGetClockInfo(device, CLOCK_SM, one);
        Double sm = errors.value(rc, one[0]);
        return new GpuReading(index, uuid, utilization, memory, watts, sm, migDevices, errors.first);
    }

    @Override
    public List<Long> processes(int index) throws NvmlException {
        Pointer device = devices.get(index);
        while (true) {
            one[0] = (int) (processInfos.size() / PROCESS_INFO_BYTES);
            int rc = lib.nvmlDeviceGetComputeRunningProcesses_v3(device, one, processInfos);
            if (rc == INSUFFICIENT_SIZE) {
                // one[0] is now the number of processes; a few more may start before the next call
                processInfos = new Memory((one[0] + 16L) * PROCESS_INFO_BYTES);
                continue;
            }
            check(rc, "nvmlDeviceGetComputeRunningProcesses");
            List<Long> pids = new ArrayList<>(one[0]);
            for (int i = 0; i < one[0]; i++) {
                pids.add(Integer.toUnsignedLong(processInfos.getInt((long) i * PROCESS_INFO_BYTES)));
            }
            return pids;
        }
    }

    @Override
    public List<String> migDevices(int index) throws NvmlException {
        Pointer device = devices.get(index);
        int rc = lib.nvmlDeviceGetMigMode(device, one, other);
        if (rc == NOT_SUPPORTED || rc == SUCCESS && one[0] != MIG_ENABLED) {
            return List.of();
        }
        check(rc, "nvmlDeviceGetMigMode");
        check(lib.nvmlDeviceGetMaxMigDeviceCount(device, one), "nvmlDeviceGetMaxMigDeviceCount");
        List<String> uuids = new ArrayList<>();
        for (int i = 0; i < one[0]; i++) {
            PointerByReference mig = new PointerByReference();
            rc = lib.nvmlDeviceGetMigDeviceHandleByIndex(device, i, mig);
            if (rc == NOT_FOUND) {
                continue; // a slot without a MIG device
            }
            check(rc, "nvmlDeviceGetMigDeviceHandleByIndex(" + i + ")");
            uuids.add(uuid(mig.getValue()));
        }
        return uuids;
    }

    @Override
    public void close() {
        if (lib != null) {
            devices = List.of();
            lib.nvmlShutdown();
        }
    }

    private String uuid(Pointer device) throws NvmlException {
        byte[] buffer = new byte[UUID_BUFFER];
        check(lib.nvmlDeviceGetUUID(device, buffer, buffer.length), "nvmlDeviceGetUUID");
        int end = 0;
        while (end < buffer.length && buffer[end] != 0) {
            end++;
        }
        return new String(buffer, 0, end, StandardCharsets.US_ASCII);
    }

    private void check(int rc, String call) throws NvmlException {
        if (rc != SUCCESS) {
            throw new NvmlException(rc, call + ": " + lib.nvmlErrorString(rc) + " (" + rc + ")");
        }
    }

    /** The values of one reading: null where NVML has none, the first real failure kept as the reading's error. */
    private final class Errors {
        String first;

        Double value(int rc, double value) {
            if (rc == SUCCESS) {
                return value;
            }
            if (rc != NOT_SUPPORTED && rc != NO_PERMISSION && rc != NO_DATA && first == null) {
                first = lib.nvmlErrorString(rc);
            }
            return null;
        }
    }
}
