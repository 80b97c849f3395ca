package io.rdmamon.deploy;

import com.fasterxml.jackson.databind.MappingIterator;
import org.yaml.snakeyaml.Yaml;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;

/** rdmamon's deployment files as parsed YAML: the plain manifests, the chart rendered, the compose file. */
final class DeployFiles {
    static final Path KUBERNETES = Path.of("deploy/kubernetes");
    static final Path CHART = Path.of("deploy/helm/rdmamon");
    static final Path COMPOSE = Path.of("deploy/compose/docker-compose.yml");
    static final String NAMESPACE = "rdmamon";

    private DeployFiles() {
    }

    /** Every object of a multi-document YAML text (empty documents skipped). */
    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> objects(String yaml, String where) {
        List<Map<String, Object>> out = new ArrayList<>();
        try (MappingIterator<Object> docs = ChartRenderer.YAML.readerFor(Object.class).readValues(yaml)) {
            while (docs.hasNext()) {
                Object doc = docs.next();
                if (doc != null) {
                    out.add((Map<String, Object>) doc);
                }
            }
        } catch (IOException | RuntimeException e) {
            throw new AssertionError(where + " is not valid YAML: " + e.getMessage(), e);
        }
        return out;
    }

    /** The chart rendered with its defaults (plus overrides), template name → objects. */
    static Map<String, List<Map<String, Object>>> chart(Map<String, Object> overrides) {
        Map<String, List<Map<String, Object>>> out = new LinkedHashMap<>();
        new ChartRenderer(CHART, NAMESPACE, NAMESPACE, overrides).render()
                .forEach((name, text) -> out.put(name, objects(text, CHART + "/templates/" + name)));
        return out;
    }

    /** The chart rendered with its defaults and {@code valuesFiles} merged over them, template name → objects. */
    static Map<String, List<Map<String, Object>>> chart(List<Path> valuesFiles) {
        Map<String, List<Map<String, Object>>> out = new LinkedHashMap<>();
        new ChartRenderer(CHART, NAMESPACE, NAMESPACE, valuesFiles, Map.of()).render()
                .forEach((name, text) -> out.put(name, objects(text, CHART + "/templates/" + name)));
        return out;
    }

    /** The example values files of the chart (deploy/helm/rdmamon/examples/*.yaml). */
    static List<Path> exampleValues() {
        try (Stream<Path> files = Files.list(CHART.resolve("examples"))) {
            return files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The plain manifests, file name → objects. */
    static Map<String, List<Map<String, Object>>> plain() {
        Map<String, List<Map<String, Object>>> out = new LinkedHashMap<>();
        try (Stream<Path> files = Files.list(KUBERNETES)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
                out.put(file.getFileName().toString(), objects(Files.readString(file), file.toString()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    /** The compose file; SnakeYAML (unlike Jackson) resolves its anchors and merge keys ({@code <<: *rdmamon}). */
    static Map<String, Object> compose() {
        try {
            return new Yaml().load(Files.readString(COMPOSE));
        } catch (IOException | RuntimeException e) {
            throw new AssertionError(COMPOSE + " is not valid YAML: " + e.getMessage(), e);
        }
    }

    static Map<String, Map<String, Object>> composeServices() {
        Map<String, Map<String, Object>> out = new LinkedHashMap<>();
        map(compose().get("services")).forEach((name, value) -> out.put(name, map(value)));
        return out;
    }

    /** Every container (init containers too) of every workload, with where it was found. */
    static List<Container> containers(Map<String, List<Map<String, Object>>> files) {
        List<Container> out = new ArrayList<>();
        files.forEach((file, objects) -> objects.forEach(object -> {
            Map<String, Object> podSpec = podSpec(object);
            if (podSpec == null) {
                return;
            }
            for (String list : List.of("initContainers", "containers")) {
                for (Map<String, Object> c : maps(podSpec.get(list))) {
                    out.add(new Container(file + " " + object.get("kind") + "/" + name(object) + " " + c.get("name"),
                            object, podSpec, c));
                }
            }
        }));
        return out;
    }

    static String name(Map<String, Object> object) {
        return String.valueOf(map(object.get("metadata")).get("name"));
    }

    static Map<String, Object> podSpec(Map<String, Object> object) {
        Map<String, Object> spec = map(object.get("spec"));
        Map<String, Object> template = map(spec.get("template"));
        return template.isEmpty() ? null : map(template.get("spec"));
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object value) {
        return value instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> maps(Object value) {
        return value instanceof List<?> l ? (List<Map<String, Object>>) l : List.of();
    }

    static List<String> strings(Object value) {
        return value instanceof List<?> l ? l.stream().map(Objects::toString).toList() : List.of();
    }

    /** One container: the workload object, its pod spec and the container itself. */
    record Container(String where, Map<String, Object> workload, Map<String, Object> podSpec,
                     Map<String, Object> spec) {
        String image() {
            return String.valueOf(spec.get("image"));
        }

        List<String> args() {
            return strings(spec.get("args"));
        }

        String role() {
            return RoleSettings.roleOf(image(), args());
        }

        List<Map<String, Object>> env() {
            return maps(spec.get("env"));
        }

        List<Map<String, Object>> mounts() {
            return maps(spec.get("volumeMounts"));
        }

        @Override
        public String toString() {
            return where;
        }

        Map<String, Object> volume(String name) {
            return maps(podSpec.get("volumes")).stream().filter(v -> name.equals(v.get("name"))).findFirst()
                    .orElseThrow(() -> new AssertionError(where + ": no volume " + name));
        }
    }
}
