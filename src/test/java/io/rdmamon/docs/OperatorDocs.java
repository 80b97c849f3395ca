package io.rdmamon.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The operator docs (README.md and docs/*.md; not the history in docs/performance-history.md or CHANGELOG.md) read as
 * Markdown the way GitHub shows them: code blocks (fenced, or indented by four spaces), inline code spans, links and
 * the headings' anchors. Each piece keeps its file and line for the failure message.
 */
public final class OperatorDocs {
    /** History, not operator docs: they may cite issues and name what no longer exists. */
    static final Set<String> HISTORY = Set.of("docs/performance-history.md", "CHANGELOG.md");

    private static final Pattern FENCE = Pattern.compile("^\\s*(```|~~~)");
    private static final Pattern SPAN = Pattern.compile("(`+)(.+?)\\1");
    private static final Pattern LINK = Pattern.compile("\\[([^\\]]*)\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
    private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");

    /** A piece of a doc: its text and where it is ({@code file:line}). */
    public record Piece(String file, int line, String text) {
        String where() {
            return file + ":" + line;
        }
    }

    /** One Markdown file, split into what lies in code blocks and what is prose. */
    public record Doc(String file, List<String> lines, boolean[] inCodeBlock) {
        /** Every line of a code block (fences excluded). */
        List<Piece> codeLines() {
            List<Piece> out = new ArrayList<>();
            for (int i = 0; i < lines.size(); i++) {
                if (inCodeBlock[i]) {
                    out.add(new Piece(file, i + 1, lines.get(i)));
                }
            }
            return out;
        }

        /** Every prose line (outside code blocks). */
        List<Piece> proseLines() {
            List<Piece> out = new ArrayList<>();
            for (int i = 0; i < lines.size(); i++) {
                if (!inCodeBlock[i] && !FENCE.matcher(lines.get(i)).find()) {
                    out.add(new Piece(file, i + 1, lines.get(i)));
                }
            }
            return out;
        }

        /** The contents of inline code spans in prose. */
        List<Piece> codeSpans() {
            List<Piece> out = new ArrayList<>();
            for (Piece line : proseLines()) {
                Matcher m = SPAN.matcher(line.text());
                while (m.find()) {
                    out.add(new Piece(file, line.line(), m.group(2).strip()));
                }
            }
            return out;
        }

        /** Link targets in prose (inline code spans removed first: a link shown as code is not a link). */
        List<Piece> linkTargets() {
            List<Piece> out = new ArrayList<>();
            for (Piece line : proseLines()) {
                Matcher m = LINK.matcher(SPAN.matcher(line.text()).replaceAll("code"));
                while (m.find()) {
                    out.add(new Piece(file, line.line(), m.group(2)));
                }
            }
            return out;
        }

        /** The anchors GitHub gives this file's headings. */
        Set<String> anchors() {
            Set<String> anchors = new LinkedHashSet<>();
            Map<String, Integer> seen = new HashMap<>();
            for (Piece line : proseLines()) {
                Matcher m = HEADING.matcher(line.text());
                if (m.matches()) {
                    String slug = slug(m.group(2));
                    int n = seen.merge(slug, 1, Integer::sum);
                    anchors.add(n == 1 ? slug : slug + "-" + (n - 1));
                }
            }
            return anchors;
        }

        Path dir() {
            Path parent = Path.of(file).getParent();
            return parent == null ? Path.of("") : parent;
        }
    }

    private OperatorDocs() {
    }

    /** README.md and every docs/*.md but the history. */
    public static List<Doc> all() {
        List<Doc> docs = new ArrayList<>();
        docs.add(read("README.md"));
        try (Stream<Path> files = Files.list(Path.of("docs"))) {
            files.map(p -> "docs/" + p.getFileName()).filter(f -> f.endsWith(".md")).filter(f -> !HISTORY.contains(f))
                    .sorted().forEach(f -> docs.add(read(f)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return docs;
    }

    /** Every Markdown file of the repository (history and component READMEs too; build output and shared/ not). */
    public static List<Doc> everyMarkdownFile() {
        try (Stream<Path> files = Files.walk(Path.of("."))) {
            return files.map(p -> Path.of(".").relativize(p).normalize().toString().replace('\\', '/'))
                    .filter(f -> f.endsWith(".md"))
                    .filter(f -> !f.startsWith("target/") && !f.startsWith(".git/") && !f.startsWith("shared/")
                            && !f.contains("/target/") && !f.contains("node_modules/"))
                    .sorted().map(OperatorDocs::read).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static Doc read(String file) {
        try {
            List<String> lines = Files.readAllLines(Path.of(file));
            boolean[] code = new boolean[lines.size()];
            boolean fenced = false;
            boolean previousBlank = true;
            boolean indented = false;
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                if (FENCE.matcher(line).find()) {
                    fenced = !fenced;
                    previousBlank = false;
                    continue;
                }
                if (fenced) {
                    code[i] = true;
                    continue;
                }
                // an indented code block starts after a blank line with four spaces (list items' continuation lines
                // are indented by two or three here, never four after a blank line)
                boolean blank = line.isBlank();
                if (line.startsWith("    ") && !blank && (previousBlank || indented)) {
                    indented = true;
                } else if (!blank) {
                    indented = false;
                }
                code[i] = indented && !blank;
                previousBlank = blank;
            }
            return new Doc(file, lines, code);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** GitHub's anchor for a heading: markup dropped, lower case, punctuation dropped, spaces to hyphens. */
    static String slug(String heading) {
        String text = heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1").replace("`", "").replace("*", "");
        return text.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
    }
}
