package io.rdmamon.docs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.rdmamon.capacity.CapacityConfig;
import io.rdmamon.cli.ConfigCommand;
import io.rdmamon.docs.OperatorDocs.Doc;
import io.rdmamon.docs.OperatorDocs.Piece;
import io.rdmamon.jobs.JobsPublishConfig;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the README and docs/ name exists: every relative link's file and heading anchor (in every Markdown file of the
 * repository: a moved section breaks links from component READMEs too), every repository path in an
 * inline code span, and every configuration key (a role's key from {@code rdmamon config show}, a {@code key.*}
 * family of them, or a Helm chart value of deploy/helm/rdmamon/values.yaml), in inline code spans and in the
 * {@code --set KEY=VALUE} of the commands shown. A renamed key, a moved file or a retitled section fails here with
 * the file and line that still name the old one.
 */
class DocsReferencesTest {
    /** Repository paths in code spans: under one of these folders, or one of these files. */
    private static final Pattern REPO_PATH = Pattern.compile(
            "(?:\\.\\./)?(?:docs|deploy|dashboards|collector|streams|src|testbed|scripts|\\.ci)/[A-Za-z0-9._/-]*"
                    + "|README\\.md|CHANGELOG\\.md|pom\\.xml");
    /** A configuration key's shape: a role's prefix, dotted lower-case words (Helm values are camelCase). */
    private static final Pattern KEY = Pattern.compile(
            "(?:collector|streams|sink|alerts|jobs|influx|jobsWatch|kafka|contract)\\.[A-Za-z0-9_.-]*[A-Za-z0-9_*]");
    private static final Pattern FILE_NAME = Pattern.compile(
            ".*\\.(?:properties|ya?ml|json|jsonl|md|sh|py|jar|jsa|options|txt|gz|xml|classlist|log)$");
    private static final Pattern SET = Pattern.compile("--(?:compare-)?set[ =]'?([^=\\s']+)=");

    @Test
    void shouldLinkOnlyToFilesAndHeadingsThatExist() {
        Map<String, Set<String>> anchors = new HashMap<>();
        List<String> broken = new ArrayList<>();
        for (Doc doc : OperatorDocs.everyMarkdownFile()) {
            for (Piece link : doc.linkTargets()) {
                String target = link.text();
                if (target.matches("^[a-z]+:.*")) {
                    continue; // https:, mailto:
                }
                String file = target.contains("#") ? target.substring(0, target.indexOf('#')) : target;
                String anchor = target.contains("#") ? target.substring(target.indexOf('#') + 1) : null;
                Path path = file.isEmpty() ? Path.of(doc.file()) : doc.dir().resolve(file).normalize();
                if (!Files.exists(path)) {
                    broken.add(link.where() + ": " + target + " (no file " + path + ")");
                } else if (anchor != null && path.toString().endsWith(".md")) {
                    Set<String> known = anchors.computeIfAbsent(path.toString(),
                            p -> OperatorDocs.read(p).anchors());
                    if (!known.contains(anchor)) {
                        broken.add(link.where() + ": " + target + " (no heading with anchor #" + anchor + " in "
                                + path + ")");
                    }
                }
            }
        }
        assertThat(broken).as("links to files or headings that do not exist").isEmpty();
    }

    @Test
    void shouldNameOnlyRepositoryPathsThatExist() {
        List<String> missing = new ArrayList<>();
        int checked = 0;
        for (Doc doc : OperatorDocs.all()) {
            for (Piece span : doc.codeSpans()) {
                for (String word : span.text().split("[\\s,;()]+")) {
                    String path = word.replaceFirst("[:#].*$", "").replaceFirst("[.]$", "");
                    if (!REPO_PATH.matcher(path).matches() || path.contains("*") || path.startsWith("target/")) {
                        continue;
                    }
                    checked++;
                    if (!Files.exists(Path.of(path)) && !Files.exists(doc.dir().resolve(path))) {
                        missing.add(span.where() + ": " + path);
                    }
                }
            }
        }
        assertThat(checked).as("repository paths named in code spans").isGreaterThan(30);
        assertThat(missing).as("repository paths named in the docs that do not exist").isEmpty();
    }

    @Test
    void shouldNameOnlyConfigurationKeysThatExist() throws IOException {
        Set<String> keys = knownKeys();
        List<String> unknown = new ArrayList<>();
        int checked = 0;
        for (Doc doc : OperatorDocs.all()) {
            List<Piece> candidates = new ArrayList<>();
            for (Piece span : doc.codeSpans()) {
                for (String word : span.text().split("[\\s,;()`]+")) {
                    candidates.add(new Piece(span.file(), span.line(), word.replaceFirst("[=:].*$", "")));
                }
            }
            for (Piece command : DocsCommandsTest.commands(List.of(doc))) {
                Matcher m = SET.matcher(command.text());
                while (m.find()) {
                    candidates.add(new Piece(command.file(), command.line(), m.group(1)));
                }
            }
            for (Piece candidate : candidates) {
                String key = candidate.text().replaceFirst("[.,]$", "");
                if (!KEY.matcher(key).matches() || FILE_NAME.matcher(key).matches() || key.startsWith("kafka.")) {
                    continue; // kafka.* passes through to the Kafka clients
                }
                checked++;
                if (!known(key, keys)) {
                    unknown.add(candidate.where() + ": " + key);
                }
            }
        }
        assertThat(checked).as("configuration keys named in the docs").isGreaterThan(50);
        assertThat(unknown).as("configuration keys named in the docs that no role and no chart value has").isEmpty();
    }

    @Test
    void shouldTellAKeyThatExistsFromOneThatDoesNot() throws IOException {
        Set<String> keys = knownKeys();
        assertThat(known("streams.stall.socket.quiet.fraction", keys)).isTrue();
        assertThat(known("streams.contract.*", keys)).isTrue();
        assertThat(known("collector.hostInterfaces", keys)).isTrue();       // a chart value
        assertThat(known("streams.stall.quiet.fraction", keys)).isFalse();
        assertThat(known("sink.nothing.*", keys)).isFalse();
    }

    private static boolean known(String key, Set<String> keys) {
        if (key.endsWith(".*")) {
            String prefix = key.substring(0, key.length() - 1);
            return keys.stream().anyMatch(k -> k.startsWith(prefix));
        }
        // a key named without its role's prefix (contract.max.future.ms under streams. and sink.) counts too
        return keys.contains(key) || keys.stream().anyMatch(k -> k.endsWith("." + key) && key.startsWith("contract."));
    }

    /** Every role's keys and every chart value's path. */
    static Set<String> knownKeys() throws IOException {
        Set<String> keys = new TreeSet<>();
        ConfigCommand.roles().values().forEach(role -> keys.addAll(role.def().names()));
        keys.addAll(JobsPublishConfig.CONFIG_DEF.names());    // jobs publish and capacity have no config file of their own
        keys.addAll(CapacityConfig.CONFIG.names());
        JsonNode values = new ObjectMapper(new YAMLFactory())
                .readTree(Path.of("deploy/helm/rdmamon/values.yaml").toFile());
        addPaths("", values, keys);
        return keys;
    }

    private static void addPaths(String prefix, JsonNode node, Set<String> out) {
        if (!node.isObject()) {
            return;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String path = prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey();
            out.add(path);
            addPaths(path, e.getValue(), out);
        }
    }
}
