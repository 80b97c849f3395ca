package io.rdmamon.collector.sysfs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads RDMA devices and ports from sysfs, raw and without judgement: no rates, no units, no state across passes.
 * Every device under {@code class/infiniband}, every port under it; {@code counters/}, {@code counters_ext/},
 * {@code hw_counters/} (port and device level), {@code state}, {@code phys_state}, {@code rate}, {@code link_layer};
 * device {@code node_guid}, {@code fw_ver}, {@code board_id}, {@code hca_type}. Each folder is listed once per pass
 * and a file that is not listed is not opened.
 *
 * <p>What cannot be read is unknown and stops nothing else: see {@link SysfsFiles} for the policy. Not thread-safe.
 */
public final class SysfsRdmaReader {
    static final String LIFESPAN = "lifespan";

    private final Path root;
    private final Path infiniband;
    private final SysfsFiles files;

    public SysfsRdmaReader(Path sysfsRoot, SysfsFiles files) {
        this.root = sysfsRoot;
        this.infiniband = sysfsRoot.resolve("class").resolve("infiniband");
        this.files = files;
    }

    /** Ends a pass: files not read in it are closed (see {@link SysfsFiles#endPass()}). */
    public void endPass() {
        files.endPass();
    }

    public Path root() {
        return root;
    }

    /**
     * The device names, sorted; empty when the kernel has no RDMA device (no {@code class/infiniband}).
     *
     * @throws SysfsUnavailableException when the root or its {@code class} folder does not exist
     */
    public List<String> devices() {
        if (!Files.isDirectory(infiniband)) {
            if (!Files.isDirectory(root.resolve("class"))) {
                throw new SysfsUnavailableException("no sysfs at " + root + " (" + root.resolve("class")
                        + " does not exist): give the sysfs mount point, e.g. /sys; in a container mount the"
                        + " host's whole /sys read-only, since class/infiniband entries are links into /sys/devices");
            }
            return List.of();
        }
        return Arrays.asList(SysfsFiles.list(infiniband));
    }

    /** One device, or {@code null} when it is gone (it vanished since {@link #devices()}). */
    public DeviceReading readDevice(String device) {
        Path dir;
        try {
            // class/infiniband/<dev> links into /sys/devices: resolving it once spares the kernel a link walk per file
            dir = infiniband.resolve(device).toRealPath();
        } catch (IOException e) {
            return null;
        }
        if (!Files.isDirectory(dir)) {
            return null;
        }
        List<PortReading> ports = new ArrayList<>();
        for (int port : portNumbers(device, dir.resolve("ports"))) {
            ports.add(readPort(device, port, dir.resolve("ports").resolve(Integer.toString(port))));
        }
        Map<String, Long> deviceHw = readCounters(device, dir.resolve(CounterFolder.HW_COUNTERS.dirName()));
        deviceHw.remove(LIFESPAN);
        return new DeviceReading(device,
                files.readText(device, dir.resolve("node_guid")),
                files.readText(device, dir.resolve("fw_ver")),
                files.readText(device, dir.resolve("board_id")),
                files.readText(device, dir.resolve("hca_type")),
                deviceHw, ports);
    }

    private PortReading readPort(String device, int port, Path dir) {
        String rateText = files.readText(device, dir.resolve("rate"));
        Long rate = PortRate.bytesPerSec(rateText);
        if (rateText != null && rate == null) {
            files.problems().error(device, dir.resolve("rate"), "not a rate: '" + rateText + "'");
        }
        Map<String, Long> hw = readCounters(device, dir.resolve(CounterFolder.HW_COUNTERS.dirName()));
        Long lifespan = hw.remove(LIFESPAN);
        return new PortReading(device, port,
                PortState.parse(files.readText(device, dir.resolve("state"))),
                PortState.parse(files.readText(device, dir.resolve("phys_state"))),
                files.readText(device, dir.resolve("link_layer")),
                rateText, rate,
                readCounters(device, dir.resolve(CounterFolder.COUNTERS.dirName())),
                readCounters(device, dir.resolve(CounterFolder.COUNTERS_EXT.dirName())),
                hw, lifespan);
    }

    /** Every file of a counter folder that holds a number; an absent folder gives an empty map. */
    private Map<String, Long> readCounters(String device, Path dir) {
        String[] names = SysfsFiles.list(dir);
        Map<String, Long> values = new HashMap<>(names.length * 2);
        for (String name : names) {
            Long value = files.readCounter(device, dir.resolve(name));
            if (value != null) {
                values.put(name, value);
            }
        }
        return values;
    }

    private int[] portNumbers(String device, Path portsDir) {
        String[] names = SysfsFiles.list(portsDir);
        int[] numbers = new int[names.length];
        int count = 0;
        for (String name : names) {
            try {
                numbers[count++] = Integer.parseInt(name);
            } catch (NumberFormatException e) {
                count--;
                files.problems().note("port-name|" + portsDir.resolve(name),
                        portsDir.resolve(name) + ": not a port number, ignored (device " + device + ")");
            }
        }
        int[] ports = Arrays.copyOf(numbers, count);
        Arrays.sort(ports);
        return ports;
    }
}
