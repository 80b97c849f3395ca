package io.rdmamon.collector.podresources;

import io.rdmamon.model.PodDeviceMap;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The pod device map of a collector that runs inside its pod (collector mode {@code pod}): the pod is alone in its
 * sysfs, so every RDMA device it sees is its own, and no kubelet needs to be asked (ACS pods have none to ask); so
 * is every GPU its GPU source reads (the container runtime shows a pod's NVML and nvidia-smi only its own GPUs).
 * The map is keyed by the pod's identity ({@link io.rdmamon.model.PodIdentity}), the node name of its samples.
 */
final class InPodDevices implements PodDeviceReporter.MapSource {
    private final Path infiniband;
    private final String namespace;
    private final String pod;
    private final Pattern include;
    private final Pattern exclude;
    private final Supplier<List<String>> gpus;

    /** {@code exclude}: null when nothing is excluded. */
    /** {@code gpus}: the uuids of the GPUs the pod's collector reads (empty without GPU source). */
    InPodDevices(Path sysfsRoot, String namespace, String pod, Pattern include, Pattern exclude,
                 Supplier<List<String>> gpus) {
        this.infiniband = sysfsRoot.resolve("class").resolve("infiniband");
        this.namespace = namespace;
        this.pod = pod;
        this.include = include;
        this.exclude = exclude;
        this.gpus = gpus;
    }

    @Override
    public PodDeviceMap map(String node, long now) {
        List<String> devices;
        try (Stream<Path> entries = Files.list(infiniband)) {
            devices = entries.map(p -> p.getFileName().toString())
                    .filter(d -> include.matcher(d).matches() && (exclude == null || !exclude.matcher(d).matches()))
                    .sorted().toList();
        } catch (NoSuchFileException e) {
            devices = List.of(); // no RDMA device in the pod (P16EN without hpn0's RDMA, a CPU pod): an empty list
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + infiniband, e);
        }
        return new PodDeviceMap(PodDeviceMap.VERSION, node, now,
                List.of(new PodDeviceMap.PodDevices(namespace, pod, devices, false, List.of(), gpus.get())));
    }

    @Override
    public void close() {
    }
}
