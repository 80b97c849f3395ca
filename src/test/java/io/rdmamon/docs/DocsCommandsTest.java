package io.rdmamon.docs;

import io.rdmamon.cli.Main;
import io.rdmamon.docs.OperatorDocs.Doc;
import io.rdmamon.docs.OperatorDocs.Piece;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every {@code ./rdmamon ...} command shown in the README or docs/ (a line of a code block, or an inline code span;
 * {@code rdmamon SUBCOMMAND ...} without the {@code ./} too)
 * still parses: through the command line of {@link Main} ({@code ./rdmamon collector} runs the same
 * {@code CollectorCommand}), options, their values' types and the subcommand names included. Parsed only: nothing runs.
 * A renamed option, a removed subcommand or a value of the wrong type in a doc fails here with the file and line.
 */
class DocsCommandsTest {
    /**
     * Marks a command named without {@code ./} ({@code rdmamon replay}): often a command's name in a sentence rather than
     * a whole command line, so its required options and {@code <placeholders>} may be left out; what it does give
     * must still parse.
     */
    static final String MENTION = "(mention) ";
    private static final Pattern BARE = Pattern.compile("rdmamon ([a-z]+)(?:\\s|$)");
    private static final Set<String> SUBCOMMANDS = Main.commandLine().getSubcommands().keySet();
    private static final Pattern SEPARATORS = Pattern.compile("\\s*(?:&&|\\|\\||;|\\s\\|\\s|\\s[12]?>>?\\s?|\\s<\\s).*$");

    @Test
    void shouldParseEveryRdmamonCommandShownInTheDocs() {
        List<Piece> commands = commands(OperatorDocs.all());
        List<String> failures = new ArrayList<>();
        for (Piece command : commands) {
            boolean mention = command.text().startsWith(MENTION);
            String text = mention ? command.text().substring(MENTION.length()) : command.text();
            List<String> args = words(text);
            if (mention) {
                args.removeIf(w -> w.matches("<[^>]*>")); // a placeholder: the option it belongs to is named only
            }
            try {
                Main.commandLine().parseArgs(args.subList(1, args.size()).toArray(String[]::new));
            } catch (CommandLine.MissingParameterException e) {
                if (!mention) {
                    failures.add(command.where() + ": " + text + "\n    " + e.getMessage());
                }
            } catch (CommandLine.ParameterException e) {
                failures.add(command.where() + ": " + text + "\n    " + e.getMessage());
            }
        }

        assertThat(commands).as("the docs show ./rdmamon commands").hasSizeGreaterThan(50);
        assertThat(failures).as("commands in the docs that ./rdmamon no longer parses").isEmpty();
    }

    @Test
    void shouldFailOnADocumentedOptionThatNoLongerExists() {
        // the check itself: an option the demo never had, and a duration that is not one
        assertThat(parses("./rdmamon demo --plain --duration 200s")).isTrue();
        assertThat(parses("./rdmamon demo --no-such-option")).isFalse();
        assertThat(parses("./rdmamon demo --duration soon")).isFalse();
        assertThat(parses("./rdmamon no-such-role")).isFalse();
        assertThat(parses("./rdmamon simulate acs-p16en")).as("a scenario is an option's value").isFalse();
    }

    private static boolean parses(String line) {
        List<String> args = words(line);
        try {
            Main.commandLine().parseArgs(args.subList(1, args.size()).toArray(String[]::new));
            return true;
        } catch (CommandLine.ParameterException e) {
            return false;
        }
    }

    /** The commands: code-block lines (continuations joined) and inline spans that begin with ./rdmamon. */
    static List<Piece> commands(List<Doc> docs) {
        List<Piece> out = new ArrayList<>();
        for (Doc doc : docs) {
            List<Piece> lines = doc.codeLines();
            for (int i = 0; i < lines.size(); i++) {
                Piece line = lines.get(i);
                StringBuilder text = new StringBuilder(line.text().strip());
                while (text.toString().endsWith("\\") && i + 1 < lines.size()) {
                    text.setLength(text.length() - 1);
                    text.append(' ').append(lines.get(++i).text().strip());
                }
                add(out, new Piece(line.file(), line.line(), text.toString().replaceFirst("^\\$\\s+", "")));
            }
            doc.codeSpans().forEach(span -> add(out, span));
        }
        return out;
    }

    private static void add(List<Piece> out, Piece piece) {
        String text = piece.text();
        // ./rdmamon ..., or rdmamon followed by one of its subcommands (not the demo's title line "rdmamon demo: ...")
        Matcher bare = BARE.matcher(text);
        boolean mention = bare.lookingAt() && SUBCOMMANDS.contains(bare.group(1));
        if (mention) {
            text = "./" + text;
        }
        if (!text.equals("./rdmamon") && !text.startsWith("./rdmamon ")) {
            return;
        }
        // a comment, then what follows the command in a shell line (&&, ;, a pipe, a redirection)
        text = text.replaceFirst("\\s+#.*$", "");
        text = SEPARATORS.matcher(text).replaceFirst("");
        // a synopsis' optional parts ([--json]) and ellipses are not part of any one command
        text = text.replaceAll("\\s\\[[^\\]]*\\]", "").replaceAll("\\s\\.\\.\\.", "").strip();
        out.add(new Piece(piece.file(), piece.line(), mention ? MENTION + text : text));
    }

    /** Shell words: split on blanks, single and double quotes kept together and removed. */
    static List<String> words(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean inWord = false;
        char quote = 0;
        for (char c : line.toCharArray()) {
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else {
                    word.append(c);
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
                inWord = true;
            } else if (Character.isWhitespace(c)) {
                if (inWord) {
                    words.add(word.toString());
                    word.setLength(0);
                    inWord = false;
                }
            } else {
                word.append(c);
                inWord = true;
            }
        }
        if (inWord) {
            words.add(word.toString());
        }
        return words;
    }
}
