package io.rdmamon.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static io.rdmamon.deploy.DeployFiles.map;
import static io.rdmamon.deploy.DeployFiles.maps;
import static io.rdmamon.deploy.DeployFiles.strings;

/**
 * Turns each rdmamon container of deploy/kubernetes, or of the chart rendered with values files, into the {@code
 * podman run} that starts it as Kubernetes would (scripts/containers/manifests.sh runs them): the image's entrypoint
 * with the manifest's command and args, the env (fieldRef spec.nodeName, metadata.name and metadata.namespace as the
 * kubelet resolves them; an optional secretKeyRef whose Secret does not exist is left out, as Kubernetes does), the
 * ConfigMap's files at their mount path, hostPath volumes at the paths given by --host-path, emptyDir as a tmpfs, a
 * volumeClaimTemplate as a named podman volume, the security context (user, read-only root, capabilities,
 * no-new-privileges), hostPID and the memory limit. Ports and probes are not podman's business on the host network:
 * the probe's path goes to the plan, the port is the one the site properties (--property) set.
 *
 * <p>Usage: {@code ManifestRuns --out DIR --node NAME [--chart] [--values FILE]... [--property FILE:KEY=VALUE]...
 * [--host-path PATH=DIR]... [--image NAME=IMAGE]... [--volume-prefix P]}. Without --chart: deploy/kubernetes.
 * --property appends a line to a properties file of the ConfigMap rdmamon-config (the site's addresses: brokers,
 * InfluxDB, Alertmanager; free metrics ports on this machine), as an operator edits it. For each container it writes
 * {@code DIR/NN-name/} with {@code args} (one podman argument a line, after {@code podman run} and its own flags),
 * {@code role}, {@code init} (true/false), {@code probe} (the readiness path), {@code where} and {@code fingerprint}
 * (the hash of what the container runs with: two equal fingerprints start the same container).
 */
public final class ManifestRuns {
    private final Path out;
    private final String node;
    private final Map<String, String> hostPaths = new LinkedHashMap<>();
    private final Map<String, String> images = new LinkedHashMap<>();
    private final Map<String, List<String>> properties = new LinkedHashMap<>();
    private String volumePrefix = "rdmamon-ct";
    private final Map<String, Map<String, Object>> configMaps = new TreeMap<>();

    private ManifestRuns(Path out, String node) {
        this.out = out;
        this.node = node;
    }

    public static void main(String[] args) throws IOException {
        Path out = null;
        String node = null;
        boolean chart = false;
        List<Path> values = new ArrayList<>();
        List<String[]> pairs = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--out" -> out = Path.of(args[++i]);
                case "--node" -> node = args[++i];
                case "--chart" -> chart = true;
                case "--values" -> values.add(Path.of(args[++i]));
                case "--property", "--host-path", "--image", "--volume-prefix" -> pairs.add(new String[]{args[i], args[++i]});
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (out == null || node == null) {
            throw new IllegalArgumentException("--out and --node are required");
        }
        ManifestRuns runs = new ManifestRuns(out, node);
        for (String[] p : pairs) {
            switch (p[0]) {
                case "--property" -> {
                    int colon = p[1].indexOf(':');
                    runs.properties.computeIfAbsent(p[1].substring(0, colon), k -> new ArrayList<>()).add(p[1].substring(colon + 1));
                }
                case "--host-path" -> runs.hostPaths.put(before(p[1]), after(p[1]));
                case "--image" -> runs.images.put(before(p[1]), after(p[1]));
                default -> runs.volumePrefix = p[1];
            }
        }
        if (!chart && !values.isEmpty()) {
            throw new IllegalArgumentException("--values needs --chart");
        }
        runs.write(chart ? DeployFiles.chart(values) : DeployFiles.plain());
    }

    private static String before(String pair) {
        return pair.substring(0, pair.indexOf('='));
    }

    private static String after(String pair) {
        return pair.substring(pair.indexOf('=') + 1);
    }

    private void write(Map<String, List<Map<String, Object>>> files) throws IOException {
        List<Map<String, Object>> objects = files.values().stream().flatMap(List::stream).toList();
        for (Map<String, Object> o : objects) {
            if ("ConfigMap".equals(o.get("kind"))) {
                Map<String, Object> data = new LinkedHashMap<>(map(o.get("data")));
                if ("rdmamon-config".equals(DeployFiles.name(o))) {
                    properties.forEach((file, lines) -> {
                        String text = String.valueOf(data.get(file));
                        if (!data.containsKey(file)) {
                            throw new IllegalArgumentException("--property: rdmamon-config has no " + file);
                        }
                        data.put(file, text + (text.endsWith("\n") ? "" : "\n") + String.join("\n", lines) + "\n");
                    });
                }
                configMaps.put(DeployFiles.name(o), data);
            }
        }
        int n = 0;
        for (Map<String, Object> o : objects) {
            Map<String, Object> podSpec = DeployFiles.podSpec(o);
            if (podSpec == null) {
                continue;
            }
            for (String list : List.of("initContainers", "containers")) {
                for (Map<String, Object> c : maps(podSpec.get(list))) {
                    String image = String.valueOf(c.get("image"));
                    if (!image.startsWith("rdmamon-")) {
                        continue; // not an rdmamon image (the topic Job's Kafka)
                    }
                    n++;
                    Path dir = out.resolve(String.format("%02d-%s-%s", n, DeployFiles.name(o), c.get("name")));
                    plan(dir, o, podSpec, c, list.equals("initContainers"));
                }
            }
        }
    }

    private void plan(Path dir, Map<String, Object> workload, Map<String, Object> podSpec, Map<String, Object> c,
                      boolean init) throws IOException {
        Files.createDirectories(dir);
        String where = workload.get("kind") + "/" + DeployFiles.name(workload) + " container " + c.get("name");
        String podName = DeployFiles.name(workload) + ("StatefulSet".equals(workload.get("kind")) ? "-0" : "-ct");
        String namespace = String.valueOf(map(workload.get("metadata")).get("namespace"));
        List<String> args = new ArrayList<>();
        Map<String, Object> security = new LinkedHashMap<>(map(podSpec.get("securityContext")));
        security.putAll(map(c.get("securityContext")));
        if (security.get("runAsUser") != null) {
            if (Boolean.TRUE.equals(security.get("runAsNonRoot")) && Integer.valueOf(0).equals(security.get("runAsUser"))) {
                throw new IllegalArgumentException(where + ": runAsNonRoot with runAsUser 0");
            }
            args.add("--user=" + security.get("runAsUser"));
        }
        if (Boolean.TRUE.equals(security.get("readOnlyRootFilesystem"))) {
            args.add("--read-only");
        }
        if (Boolean.FALSE.equals(security.get("allowPrivilegeEscalation"))) {
            args.add("--security-opt=no-new-privileges");
        }
        Map<String, Object> caps = map(security.get("capabilities"));
        strings(caps.get("drop")).forEach(cap -> args.add("--cap-drop=" + cap));
        strings(caps.get("add")).forEach(cap -> args.add("--cap-add=" + cap));
        if (Boolean.TRUE.equals(podSpec.get("hostPID"))) {
            args.add("--pid=host");
        }
        Object memory = map(map(c.get("resources")).get("limits")).get("memory");
        if (memory != null) {
            args.add("--memory=" + memory.toString().replace("Ki", "k").replace("Mi", "m").replace("Gi", "g"));
        }
        for (Map<String, Object> e : maps(c.get("env"))) {
            String name = String.valueOf(e.get("name"));
            if (e.containsKey("value")) {
                args.add("--env=" + name + "=" + (e.get("value") == null ? "" : e.get("value")));
                continue;
            }
            Map<String, Object> from = map(e.get("valueFrom"));
            Map<String, Object> field = map(from.get("fieldRef"));
            Map<String, Object> secret = map(from.get("secretKeyRef"));
            if (!field.isEmpty()) {
                String value = switch (String.valueOf(field.get("fieldPath"))) {
                    case "spec.nodeName" -> node;
                    case "metadata.name" -> podName;
                    case "metadata.namespace" -> namespace;
                    default -> throw new IllegalArgumentException(where + ": fieldRef " + field.get("fieldPath"));
                };
                args.add("--env=" + name + "=" + value);
            } else if (!secret.isEmpty() && Boolean.TRUE.equals(secret.get("optional"))) {
                // the Secret does not exist here: Kubernetes leaves an optional reference's variable out
            } else {
                throw new IllegalArgumentException(where + ": env " + name + " from " + from + " (not optional)");
            }
        }
        for (Map<String, Object> m : maps(c.get("volumeMounts"))) {
            args.add(mount(dir, workload, podSpec, m, where));
        }
        String image = String.valueOf(c.get("image"));
        String repository = image.contains(":") ? image.substring(0, image.indexOf(':')) : image;
        if (!images.containsKey(repository)) {
            throw new IllegalArgumentException(where + ": no --image for " + repository);
        }
        List<String> command = strings(c.get("command"));
        if (!command.isEmpty()) {
            args.add("--entrypoint=" + ChartRenderer.JSON.writeValueAsString(command));
        }
        args.add(images.get(repository));
        args.addAll(strings(c.get("args")));
        String probe = String.valueOf(map(map(c.get("readinessProbe")).get("httpGet")).getOrDefault("path", "/metrics"));
        Files.write(dir.resolve("args"), args, StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("role"), RoleSettings.roleOf(image, strings(c.get("args"))) + "\n");
        Files.writeString(dir.resolve("init"), init + "\n");
        Files.writeString(dir.resolve("probe"), probe + "\n");
        Files.writeString(dir.resolve("where"), where + "\n");
        Files.writeString(dir.resolve("fingerprint"), fingerprint(dir, volumePrefix, args) + "\n");
    }

    private String mount(Path dir, Map<String, Object> workload, Map<String, Object> podSpec, Map<String, Object> m,
                         String where) throws IOException {
        String name = String.valueOf(m.get("name"));
        String path = String.valueOf(m.get("mountPath"));
        String ro = Boolean.TRUE.equals(m.get("readOnly")) ? ":ro" : "";
        Map<String, Object> volume = maps(podSpec.get("volumes")).stream().filter(v -> name.equals(v.get("name")))
                .findFirst().orElse(null);
        if (volume == null) {
            boolean claim = maps(map(workload.get("spec")).get("volumeClaimTemplates")).stream()
                    .anyMatch(t -> name.equals(map(t.get("metadata")).get("name")));
            if (!claim) {
                throw new IllegalArgumentException(where + ": no volume " + name);
            }
            return "--volume=" + volumePrefix + "-" + DeployFiles.name(workload) + "-" + name + ":" + path;
        }
        if (volume.containsKey("configMap")) {
            Map<String, Object> ref = map(volume.get("configMap"));
            Map<String, Object> data = configMaps.get(String.valueOf(ref.get("name")));
            if (data == null) {
                throw new IllegalArgumentException(where + ": no ConfigMap " + ref.get("name"));
            }
            Path files = dir.resolve("volumes").resolve(name);
            Files.createDirectories(files);
            List<Map<String, Object>> items = maps(ref.get("items"));
            if (items.isEmpty()) {
                data.forEach((key, value) -> write(files.resolve(key), value));
            } else {
                for (Map<String, Object> item : items) {
                    Object value = data.get(String.valueOf(item.get("key")));
                    if (value == null) {
                        throw new IllegalArgumentException(where + ": ConfigMap " + ref.get("name") + " has no " + item.get("key"));
                    }
                    write(files.resolve(String.valueOf(item.get("path"))), value);
                }
            }
            return "--volume=" + files.toAbsolutePath() + ":" + path + ":ro";
        }
        if (volume.containsKey("hostPath")) {
            String host = String.valueOf(map(volume.get("hostPath")).get("path"));
            String local = hostPaths.get(host);
            if (local == null) {
                throw new IllegalArgumentException(where + ": no --host-path for hostPath " + host);
            }
            return "--volume=" + local + ":" + path + ro;
        }
        if (volume.containsKey("emptyDir")) {
            return "--mount=type=tmpfs,destination=" + path + ",tmpfs-mode=1777";
        }
        throw new IllegalArgumentException(where + ": volume " + name + " of a kind this runner does not know: " + volume);
    }

    private static void write(Path file, Object value) {
        try {
            Files.writeString(file, String.valueOf(value));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Of the arguments (this plan's own folder written as '@', the volume prefix as '@volumes') and every file the
     * container is given.
     */
    private static String fingerprint(Path dir, String volumePrefix, List<String> args) throws IOException {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            String own = dir.toAbsolutePath().toString();
            for (String arg : args) {
                sha.update((arg.replace(own, "@").replace(volumePrefix, "@volumes") + "\n").getBytes(StandardCharsets.UTF_8));
            }
            Path volumes = dir.resolve("volumes");
            if (Files.isDirectory(volumes)) {
                try (var files = Files.walk(volumes)) {
                    for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
                        sha.update((dir.relativize(f) + "\n").getBytes(StandardCharsets.UTF_8));
                        sha.update(Files.readAllBytes(f));
                    }
                }
            }
            return HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
