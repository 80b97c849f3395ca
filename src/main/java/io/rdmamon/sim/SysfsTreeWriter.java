package io.rdmamon.sim;

import io.rdmamon.collector.sysfs.CounterFolder;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Writes a simulated sysfs tree that the collector cannot tell from a real one: the same folders, file names, value
 * formats and links ({@code class/infiniband/<dev>} and {@code class/net/<iface>} are symlinks into
 * {@code devices/pci...}, as in /sys). The simulator owns the counters; each change rewrites the affected files, each
 * file atomically (written aside, then renamed over the old one), so a concurrent reader sees the old value or the new
 * one, never half of it. Temporary files live outside {@code class/} and never appear in a listing.
 *
 * <p>Kinds: {@link DeviceKind#MLX5} (counters/ plus hw_counters/, InfiniBand or Ethernet/RoCE, any number of ports),
 * {@link DeviceKind#ERDMA_UPSTREAM} and {@link DeviceKind#ERDMA_OUT_OF_TREE} (no counters/, one port). Classic error
 * counters saturate at their width like real PortCounters. Thread-safe.
 */
public final class SysfsTreeWriter {
    public static final String ETHERNET = "Ethernet";
    public static final String INFINIBAND = "InfiniBand";
    private static final Set<String> WIDE_CLASSIC = Set.of("port_xmit_data", "port_rcv_data", "port_xmit_packets",
            "port_rcv_packets");

    public enum DeviceKind {
        /** NVIDIA/Mellanox ConnectX: {@code counters/} and {@code hw_counters/}; InfiniBand or Ethernet (RoCE). */
        MLX5,
        /** Alibaba eRDMA, upstream driver: {@code ports/1/hw_counters/tx_bytes_cnt}, ... and no {@code counters/}. */
        ERDMA_UPSTREAM,
        /** Alibaba eRDMA, out-of-tree driver: {@code hw_tx_bytes_cnt}, ... in device and port {@code hw_counters/}. */
        ERDMA_OUT_OF_TREE
    }

    private record Device(String name, DeviceKind kind, Path dir, Path link) {
    }

    private final Path root;
    private final SimFiles files;
    private final Map<String, Device> devices = new HashMap<>();
    private final Map<String, Path> interfaces = new HashMap<>();
    /** Each counter file's true count: bytes for the 4-octet-word files {@code port_*_data}. */
    private final Map<Path, Long> counts = new HashMap<>();
    private int nextPciSlot = 1;

    /**
     * Where simulated trees should live: tmpfs ({@code /dev/shm}) when it exists, else the temp folder. Every
     * counter update is a rename, about 50 µs on tmpfs and 0.5 ms on a disk file system.
     */
    public static Path preferredTempRoot() {
        Path shm = Path.of("/dev/shm");
        return Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
    }

    public SysfsTreeWriter(Path root) {
        this(root, false);
    }

    private SysfsTreeWriter(Path root, boolean inPlace) {
        this.root = root;
        SimFiles.createDirectories(root.resolve("class").resolve("infiniband"));
        SimFiles.createDirectories(root.resolve("class").resolve("net"));
        this.files = new SimFiles(root.resolve(".rdmamon-sim-tmp"), inPlace);
    }

    /**
     * A tree whose values change in place, as sysfs values do, for a collector that keeps files open
     * ({@code collector.sysfs.keep.open=always}). A concurrent reader may see a torn value: for benchmarks, not for
     * tests that check values.
     */
    public static SysfsTreeWriter inPlace(Path root) {
        return new SysfsTreeWriter(root, true);
    }

    /** The sysfs root to give the collector (its {@code /sys}). */
    public Path root() {
        return root;
    }

    public synchronized Path portDir(String device, int port) {
        return device(device).dir.resolve("ports").resolve(Integer.toString(port));
    }

    /** Creates a device with all counters at 0, ports ACTIVE/LinkUp. eRDMA devices have one port and Ethernet. */
    public synchronized void addDevice(String name, DeviceKind kind, int ports, String linkLayer) {
        if (devices.containsKey(name)) {
            throw new IllegalArgumentException("device " + name + " exists");
        }
        if (kind != DeviceKind.MLX5 && (ports != 1 || !ETHERNET.equals(linkLayer))) {
            throw new IllegalArgumentException("an eRDMA device has exactly one Ethernet port");
        }
        if (!ETHERNET.equals(linkLayer) && !INFINIBAND.equals(linkLayer)) {
            throw new IllegalArgumentException("link layer is " + ETHERNET + " or " + INFINIBAND + ": " + linkLayer);
        }
        int slot = nextPciSlot++;
        String pci = pciDir(slot);
        Path dir = root.resolve(pci + "infiniband/" + name);
        Device device = new Device(name, kind, dir, root.resolve("class/infiniband/" + name));
        SimDeviceFiles.writeIdentity(files, device.dir, kind, slot);
        for (int port = 1; port <= ports; port++) {
            Path portDir = dir.resolve("ports").resolve(Integer.toString(port));
            SimDeviceFiles.writePortAttributes(files, portDir, kind, linkLayer, slot, port);
            for (Path counter : SimDeviceFiles.counterFiles(portDir, kind, linkLayer)) {
                setCount(counter, 0);
            }
        }
        if (kind == DeviceKind.ERDMA_OUT_OF_TREE) {
            files.write(dir.resolve("hw_counters").resolve("lifespan"), "10\n");
            for (Path counter : SimDeviceFiles.counterFiles(dir, kind, linkLayer)) {
                setCount(counter, 0);
            }
        }
        SimFiles.link(device.link, "../../" + pci + "infiniband/" + name);
        devices.put(name, device);
    }

    /** The device disappears as on a driver unload: first its class link, then its folder. */
    public synchronized void removeDevice(String name) {
        Device device = device(name);
        devices.remove(name);
        files.removeLinkedTree(device.link, device.dir);
        counts.keySet().removeIf(file -> file.startsWith(device.dir));
    }

    /** Adds traffic to a port in bytes and packets, into the files its driver would count it in. */
    public synchronized void addTraffic(String name, int port, long txBytes, long rxBytes, long txPackets,
                                        long rxPackets) {
        Device device = device(name);
        Path dir = portDir(name, port);
        switch (device.kind) {
            case MLX5 -> {
                Path counters = dir.resolve("counters");
                add(device, counters.resolve("port_xmit_data"), txBytes);
                add(device, counters.resolve("port_rcv_data"), rxBytes);
                add(device, counters.resolve("port_xmit_packets"), txPackets);
                add(device, counters.resolve("port_rcv_packets"), rxPackets);
                add(device, counters.resolve("unicast_xmit_packets"), txPackets);
                add(device, counters.resolve("unicast_rcv_packets"), rxPackets);
            }
            case ERDMA_UPSTREAM, ERDMA_OUT_OF_TREE -> {
                Path hw = dir.resolve("hw_counters");
                String prefix = device.kind == DeviceKind.ERDMA_OUT_OF_TREE ? "hw_" : "";
                add(device, hw.resolve(prefix + "tx_bytes_cnt"), txBytes);
                add(device, hw.resolve(prefix + "rx_bytes_cnt"), rxBytes);
                add(device, hw.resolve(prefix + "tx_packets_cnt"), txPackets);
                add(device, hw.resolve(prefix + "rx_packets_cnt"), rxPackets);
                add(device, hw.resolve(prefix + "tx_reqs_cnt"), txPackets);
            }
        }
    }

    /** Adds to any counter of the port by file name ({@code symbol_error}, {@code hw_bps_limit_drop_cnt}, ...). */
    public synchronized void addCounter(String name, int port, String counter, long increment) {
        Device device = device(name);
        add(device, counterFile(device, port, counter), increment);
    }

    /** Sets a counter's file to a raw value, e.g. back to 0 (a reset) or to all ones (saturated). */
    public synchronized void setCounter(String name, int port, String counter, long rawValue) {
        Device device = device(name);
        Path file = counterFile(device, port, counter);
        setCount(file, rawValue * unit(file));
        mirror(device, file);
    }

    /** {@code state}, e.g. {@code (1, "DOWN")} or {@code (4, "ACTIVE")}. */
    public synchronized void setState(String name, int port, int id, String state) {
        files.write(portDir(name, port).resolve("state"), id + ": " + state + "\n");
    }

    /** {@code phys_state}, e.g. {@code (3, "Disabled")} or {@code (5, "LinkUp")}. */
    public synchronized void setPhysState(String name, int port, int id, String physState) {
        files.write(portDir(name, port).resolve("phys_state"), id + ": " + physState + "\n");
    }

    /** {@code rate} as the kernel prints it, e.g. {@code 200 Gb/sec (4X HDR)}. */
    public synchronized void setRate(String name, int port, String rateText) {
        files.write(portDir(name, port).resolve("rate"), rateText + "\n");
    }

    /** Creates {@code class/net/<iface>} with all statistics at 0. */
    public synchronized void addInterface(String iface) {
        if (interfaces.containsKey(iface)) {
            throw new IllegalArgumentException("interface " + iface + " exists");
        }
        String pci = pciDir(nextPciSlot++) + "net/" + iface;
        Path dir = root.resolve(pci);
        files.write(dir.resolve("operstate"), "up\n");
        files.write(dir.resolve("mtu"), "1500\n");
        for (String counter : SimCounterNames.NET_STATISTICS) {
            setCount(dir.resolve("statistics").resolve(counter), 0);
        }
        SimFiles.link(root.resolve("class/net/" + iface), "../../" + pci);
        interfaces.put(iface, dir.resolve("statistics"));
    }

    public synchronized void addInterfaceTraffic(String iface, long txBytes, long rxBytes, long txPackets,
                                                 long rxPackets) {
        addInterfaceCounter(iface, "tx_bytes", txBytes);
        addInterfaceCounter(iface, "rx_bytes", rxBytes);
        addInterfaceCounter(iface, "tx_packets", txPackets);
        addInterfaceCounter(iface, "rx_packets", rxPackets);
    }

    /** Adds to one statistics file, e.g. {@code rx_dropped}; {@link #setInterfaceCounter} sets one (a reset). */
    public synchronized void addInterfaceCounter(String iface, String counter, long increment) {
        Path file = interfaceFile(iface, counter);
        setCount(file, counts.get(file) + increment);
    }

    public synchronized void setInterfaceCounter(String iface, String counter, long value) {
        setCount(interfaceFile(iface, counter), value);
    }

    private Path interfaceFile(String iface, String counter) {
        Path statistics = interfaces.get(iface);
        if (statistics == null || !counts.containsKey(statistics.resolve(counter))) {
            throw new IllegalArgumentException("no statistics file " + counter + " for interface " + iface);
        }
        return statistics.resolve(counter);
    }

    private static String pciDir(int slot) {
        return "devices/pci0000:00/0000:00:" + String.format("%02x", slot) + ".0/";
    }

    private Device device(String name) {
        Device device = devices.get(name);
        if (device == null) {
            throw new IllegalArgumentException("no device " + name);
        }
        return device;
    }

    private Path counterFile(Device device, int port, String counter) {
        Path dir = portDir(device.name, port);
        for (CounterFolder folder : CounterFolder.values()) {
            Path file = dir.resolve(folder.dirName()).resolve(counter);
            if (counts.containsKey(file)) {
                return file;
            }
        }
        throw new IllegalArgumentException(device.kind + " device " + device.name + " port " + port
                + " has no counter " + counter);
    }

    private void add(Device device, Path file, long increment) {
        long count = counts.get(file) + increment;
        long max = saturatedCount(file);
        setCount(file, Long.compareUnsigned(count, max) > 0 ? max : count);
        mirror(device, file);
    }

    /** Out-of-tree eRDMA serves the same statistics at device and port level. */
    private void mirror(Device device, Path file) {
        if (device.kind == DeviceKind.ERDMA_OUT_OF_TREE) {
            setCount(device.dir.resolve("hw_counters").resolve(file.getFileName()), counts.get(file));
        }
    }

    /** Real classic error counters stop at all ones; mlx5 serves data and packets from the 64-bit table. */
    private static long saturatedCount(Path file) {
        String name = file.getFileName().toString();
        boolean classic = file.getParent().getFileName().toString().equals(CounterFolder.COUNTERS.dirName());
        return classic && !WIDE_CLASSIC.contains(name) ? CounterFolder.COUNTERS.saturatedValue(name) : -1L;
    }

    private static long unit(Path file) {
        String name = file.getFileName().toString();
        return name.equals("port_xmit_data") || name.equals("port_rcv_data") ? 4 : 1;
    }

    private void setCount(Path file, long count) {
        counts.put(file, count);
        files.write(file, Long.toUnsignedString(Long.divideUnsigned(count, unit(file))) + "\n");
    }
}
