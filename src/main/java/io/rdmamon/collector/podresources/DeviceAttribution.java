package io.rdmamon.collector.podresources;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.rdmamon.collector.podresources.v1.ContainerDevices;
import io.rdmamon.collector.podresources.v1.ContainerResources;
import io.rdmamon.collector.podresources.v1.ListPodResourcesResponse;
import io.rdmamon.collector.podresources.v1.PodResources;
import io.rdmamon.model.PodDeviceMap;
import io.rdmamon.model.PodDeviceMap.PodDevices;
import io.rdmamon.support.LogLimiter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Turns the kubelet's answer (device ids per container, as each device plugin named them) into physical RDMA device
 * names per pod. Three kinds of ids:
 * <ul>
 *   <li>device resources ({@code aliyun/erdma}): {@code erdma_0/17} is one of the virtual ids of {@code erdma_0}; the
 *       part before the first {@code /} is the device;</li>
 *   <li>shared resources ({@code rdma/hca}): the id names no device; holders get the node's devices that match the
 *       configured pattern, marked shared, or none (the resource is then listed as unresolved);</li>
 *   <li>any other resource whose ids are PCI addresses (SR-IOV virtual functions, {@code 0000:3b:02.1}): the device is
 *       the RDMA device sysfs shows under {@code <sysfs>/bus/pci/devices/<address>/infiniband/}. A PCI function
 *       without one is not an RDMA device and is left out.</li>
 * </ul>
 * GPU resources ({@code nvidia.com/gpu}) give the pod's GPUs, their ids kept as the device plugin gives them (a uuid,
 * a time-sliced replica {@code GPU-...::N}, a MIG device's uuid, or an index): {@link io.rdmamon.model.GpuIds} maps
 * each to a GPU sample. Other resources (CPUs, hugepages) are ignored; pods that hold neither an RDMA resource nor a GPU are left out of the map.
 */
public final class DeviceAttribution {
    private static final Logger log = LoggerFactory.getLogger(DeviceAttribution.class);
    private static final Pattern DEVICE_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]*");
    private static final Pattern PCI_ADDRESS = Pattern.compile("[0-9a-fA-F]{4,}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\\.[0-7]");

    private final Path sysfsRoot;
    private final Set<String> deviceResources;
    private final Set<String> sharedResources;
    private final Set<String> gpuResources;
    private final Pattern sharedDevices;
    private final Counter badIds;
    private final LogLimiter logLimiter = new LogLimiter(Duration.ofMinutes(1));

    /** {@code sharedDevices}: null when the devices of shared resources are unknown. */
    public DeviceAttribution(Path sysfsRoot, Set<String> deviceResources, Set<String> sharedResources,
                             Set<String> gpuResources, Pattern sharedDevices, MeterRegistry registry) {
        this.sysfsRoot = sysfsRoot;
        this.deviceResources = Set.copyOf(deviceResources);
        this.sharedResources = Set.copyOf(sharedResources);
        this.gpuResources = Set.copyOf(gpuResources);
        this.sharedDevices = sharedDevices;
        this.badIds = Counter.builder("rdmamon.podresources.invalid.ids")
                .description("device ids of a device resource that name no device (not <device> or <device>/<n>)")
                .register(registry);
    }

    public DeviceAttribution(Path sysfsRoot, PodResourcesConfig config, MeterRegistry registry) {
        this(sysfsRoot, Set.copyOf(config.deviceResources()), Set.copyOf(config.sharedResources()),
                Set.copyOf(config.gpuResources()), config.sharedDevices(), registry);
    }

    public PodDeviceMap map(String node, long ts, ListPodResourcesResponse response) {
        List<PodDevices> pods = new ArrayList<>();
        for (PodResources pod : response.getPodResourcesList()) {
            PodDevices devices = attribute(pod);
            if (devices != null) {
                pods.add(devices);
            }
        }
        pods.sort(Comparator.comparing(PodDevices::namespace).thenComparing(PodDevices::pod));
        return new PodDeviceMap(PodDeviceMap.VERSION, node, ts, List.copyOf(pods));
    }

    /** Null when the pod holds neither an RDMA resource nor a GPU. */
    private PodDevices attribute(PodResources pod) {
        Set<String> devices = new TreeSet<>();
        Set<String> unresolved = new TreeSet<>();
        Set<String> gpus = new TreeSet<>();
        boolean rdma = false;
        boolean shared = false;
        for (ContainerResources container : pod.getContainersList()) {
            for (ContainerDevices held : container.getDevicesList()) {
                String resource = held.getResourceName();
                if (gpuResources.contains(resource)) {
                    gpus.addAll(held.getDeviceIdsList());
                } else if (deviceResources.contains(resource)) {
                    rdma = true;
                    held.getDeviceIdsList().forEach(id -> physicalDevice(pod, resource, id, devices, unresolved));
                } else if (sharedResources.contains(resource)) {
                    rdma = true;
                    List<String> exposed = sharedDevices();
                    if (exposed == null) {
                        unresolved.add(resource);
                    } else {
                        shared = true;
                        devices.addAll(exposed);
                    }
                } else {
                    for (String id : held.getDeviceIdsList()) {
                        if (PCI_ADDRESS.matcher(id).matches()) {
                            List<String> found = rdmaDevicesOfPciFunction(id);
                            rdma |= !found.isEmpty();
                            devices.addAll(found);
                        }
                    }
                }
            }
        }
        if (!rdma && gpus.isEmpty()) {
            return null;
        }
        return new PodDevices(pod.getNamespace(), pod.getName(), List.copyOf(devices), shared,
                List.copyOf(unresolved), List.copyOf(gpus));
    }

    private void physicalDevice(PodResources pod, String resource, String id, Set<String> devices,
                                Set<String> unresolved) {
        int slash = id.indexOf('/');
        String device = slash < 0 ? id : id.substring(0, slash);
        if (DEVICE_NAME.matcher(device).matches()) {
            devices.add(device);
            return;
        }
        badIds.increment();
        unresolved.add(resource);
        long suppressed = logLimiter.admit("bad-id");
        if (suppressed != LogLimiter.SUPPRESS) {
            log.warn("pod {}/{} holds {} id '{}', which names no device (expected <device> or <device>/<n>)"
                    + LogLimiter.suffix(suppressed), pod.getNamespace(), pod.getName(), resource, id);
        }
    }

    /** The node's RDMA devices the shared resources expose; null when unknown. */
    private List<String> sharedDevices() {
        if (sharedDevices == null) {
            return null;
        }
        return listDir(sysfsRoot.resolve("class/infiniband")).stream()
                .filter(name -> sharedDevices.matcher(name).matches()).toList();
    }

    private List<String> rdmaDevicesOfPciFunction(String address) {
        Path dir = sysfsRoot.resolve("bus/pci/devices").resolve(address.toLowerCase(Locale.ROOT)).resolve("infiniband");
        List<String> found = listDir(dir);
        if (found.isEmpty()) {
            log.debug("PCI function {} has no RDMA device under {}: not attributed", address, dir);
        }
        return found;
    }

    private static List<String> listDir(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.map(p -> p.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            log.warn("cannot list {}: {}", dir, e.toString());
            return List.of();
        }
    }
}
