package io.rdmamon.collector.sysfs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Reads RDMA devices and ports from sysfs, raw and without judgement: no rates, no units, no state across passes.
 * Every device under {@code class/infiniband}, every port under it; {@code counters/}, {@code counters_ext/},
 * {@code hw_counters/} (port and device level), {@code state}, {@code phys_state}, {@code rate}, {@code link_layer};
 * device {@code node_guid}, {@code fw_ver}, {@code board_id}, {@code hca_type}.
 *
 * <p>A device's folders are listed, its link resolved and its static attributes (rate, link layer, identity) read at a
 * scan, kept as a {@link DeviceLayout}; a pass then reads only the port states and the counters. A device is scanned
 * again when the rescan interval has passed, when a port's state or physical state changed (the link may have come
 * back at another rate), and when a file of its layout was missing (driver reload, hot-unplug). The device list itself
 * is read every pass, so a device that comes or goes is seen at once. A rescan interval of 0 scans every pass.
 *
 * <p>What cannot be read is unknown and stops nothing else: see {@link SysfsFiles} for the policy. Not thread-safe.
 */
public final class SysfsRdmaReader {
    private final Path root;
    private final Path infiniband;
    private final SysfsFiles files;
    private final long rescanNanos;
    private final Map<String, DeviceLayout> layouts = new HashMap<>();

    /** Scans every device on every pass. */
    public SysfsRdmaReader(Path sysfsRoot, SysfsFiles files) {
        this(sysfsRoot, files, 0);
    }

    /** @param rescanMs how long a device's layout is used before its folders are listed again */
    public SysfsRdmaReader(Path sysfsRoot, SysfsFiles files, long rescanMs) {
        this.root = sysfsRoot;
        this.infiniband = sysfsRoot.resolve("class").resolve("infiniband");
        this.files = files;
        this.rescanNanos = rescanMs * 1_000_000;
    }

    /** Ends a pass: files not read in it are closed (see {@link SysfsFiles#endPass()}), layouts of gone devices go. */
    public void endPass(Collection<String> devices) {
        layouts.keySet().retainAll(devices);
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
        String[] names = SysfsFiles.list(infiniband);
        if (names.length == 0 && !Files.isDirectory(infiniband)) {
            if (!Files.isDirectory(root.resolve("class"))) {
                throw new SysfsUnavailableException("no sysfs at " + root + " (" + root.resolve("class")
                        + " does not exist): give the sysfs mount point, e.g. /sys; in a container mount the"
                        + " host's whole /sys read-only, since class/infiniband entries are links into /sys/devices");
            }
            return List.of();
        }
        return Arrays.asList(names);
    }

    /** One device read at {@code nowNanos} (monotonic), or {@code null} when it is gone. */
    public DeviceReading readDevice(String device, long nowNanos) {
        DeviceLayout layout = layouts.get(device);
        if (layout == null || rescanNanos == 0 || nowNanos - layout.scannedNanos() >= rescanNanos) {
            layout = scan(device, nowNanos);
        }
        if (layout == null) {
            return null;
        }
        long absent = files.absentReads();
        for (DeviceLayout.PortLayout port : layout.ports()) {
            String state = files.readText(device, port.stateFile());
            String physState = files.readText(device, port.physStateFile());
            if (!Objects.equals(state, port.state()) || !Objects.equals(physState, port.physState())) {
                layouts.remove(device);
                // the link changed: its rate and layout are read again (a scan reads the new states, no loop)
                return layout.scannedNanos() == nowNanos ? read(device, layout) : readDevice(device, nowNanos);
            }
        }
        DeviceReading reading = read(device, layout);
        if (files.absentReads() != absent) {
            layouts.remove(device); // a file went away: list the folders again on the next pass
        }
        return reading;
    }

    /** Scans every device every pass (a rescan interval of 0). */
    public DeviceReading readDevice(String device) {
        return readDevice(device, 0);
    }

    private DeviceReading read(String device, DeviceLayout layout) {
        List<PortReading> ports = new ArrayList<>(layout.ports().size());
        for (DeviceLayout.PortLayout port : layout.ports()) {
            SysfsFiles.Attribute lifespan = port.hw().lifespan;
            ports.add(new PortReading(device, port.port(), PortState.parse(port.state()),
                    PortState.parse(port.physState()), port.linkLayer(), port.rateText(), port.rateBytesPerSec(),
                    port.counters().read(device, files), port.countersExt().read(device, files),
                    port.hw().read(device, files), lifespan == null ? null : files.readCounter(device, lifespan)));
        }
        return new DeviceReading(device, layout.nodeGuid(), layout.fwVer(), layout.boardId(), layout.hcaType(),
                layout.deviceHw().read(device, files), ports);
    }

    /** Lists the device's folders and reads its static attributes; {@code null} when the device is gone. */
    private DeviceLayout scan(String device, long nowNanos) {
        Path dir;
        try {
            // class/infiniband/<dev> links into /sys/devices: resolving it once spares the kernel a link walk per file
            dir = infiniband.resolve(device).toRealPath();
        } catch (IOException e) {
            layouts.remove(device);
            return null;
        }
        if (!Files.isDirectory(dir)) {
            layouts.remove(device);
            return null;
        }
        List<DeviceLayout.PortLayout> ports = new ArrayList<>();
        for (int port : portNumbers(device, dir.resolve("ports"))) {
            ports.add(scanPort(device, port, dir.resolve("ports").resolve(Integer.toString(port))));
        }
        DeviceLayout layout = new DeviceLayout(nowNanos, ports,
                counterFiles(dir, CounterFolder.HW_COUNTERS),
                files.readText(device, dir.resolve("node_guid")),
                files.readText(device, dir.resolve("fw_ver")),
                files.readText(device, dir.resolve("board_id")),
                files.readText(device, dir.resolve("hca_type")));
        layouts.put(device, layout);
        return layout;
    }

    private DeviceLayout.PortLayout scanPort(String device, int port, Path dir) {
        String rateText = files.readText(device, dir.resolve("rate"));
        Long rate = PortRate.bytesPerSec(rateText);
        if (rateText != null && rate == null) {
            files.problems().error(device, dir.resolve("rate"), "not a rate: '" + rateText + "'");
        }
        SysfsFiles.Attribute state = new SysfsFiles.Attribute(dir.resolve("state"));
        SysfsFiles.Attribute physState = new SysfsFiles.Attribute(dir.resolve("phys_state"));
        return new DeviceLayout.PortLayout(port, state, physState, files.readText(device, state),
                files.readText(device, physState),
                files.readText(device, dir.resolve("link_layer")), rateText, rate,
                counterFiles(dir, CounterFolder.COUNTERS), counterFiles(dir, CounterFolder.COUNTERS_EXT),
                counterFiles(dir, CounterFolder.HW_COUNTERS));
    }

    private static CounterFiles counterFiles(Path dir, CounterFolder folder) {
        return CounterFiles.of(folder, dir.resolve(folder.dirName()));
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
