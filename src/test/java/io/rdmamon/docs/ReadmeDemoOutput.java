package io.rdmamon.docs;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A screen of the demo's live view, as the README shows it or as the demo printed it: its title, the two table
 * headers, the ports' rows ({@code node device/port}), the jobs' names, and the alerts' status and type. The live
 * numbers are left out: they move every second.
 */
public record ReadmeDemoOutput(String title, String portHeader, Set<String> ports, String jobHeader,
                               Set<String> jobs, List<String> alerts) {
    private static final Pattern PORT_ROW = Pattern.compile("^(\\S+)\\s+(\\S+/\\d+)\\s+\\S+\\s+\\S+\\s+[-0-9.]+\\s+.*$");
    private static final Pattern JOB_ROW = Pattern.compile("^(\\S+/\\S+)\\s+[-0-9.]+\\s+[-0-9.]+\\s+\\d+/\\d+.*$");
    private static final Pattern ALERT_ROW = Pattern.compile("^  (firing|resolved)\\s+([A-Z_]+)\\s+.*$");

    /** The README's demo output: the code block that begins with the view's title line. */
    public static ReadmeDemoOutput fromReadme() {
        OperatorDocs.Doc readme = OperatorDocs.read("README.md");
        List<String> block = new ArrayList<>();
        boolean inBlock = false;
        for (int i = 0; i < readme.lines().size(); i++) {
            String line = readme.lines().get(i);
            if (readme.inCodeBlock()[i] && (inBlock || line.startsWith("rdmamon demo:"))) {
                inBlock = true;
                block.add(line);
            } else if (inBlock) {
                break;
            }
        }
        if (block.isEmpty()) {
            throw new AssertionError("README.md shows no demo output (a code block starting with 'rdmamon demo:')");
        }
        return parse(String.join("\n", block));
    }

    /** One screen of the view (from its title line to the next one). */
    public static ReadmeDemoOutput parse(String screen) {
        String title = null;
        String portHeader = null;
        String jobHeader = null;
        Set<String> ports = new LinkedHashSet<>();
        Set<String> jobs = new LinkedHashSet<>();
        List<String> alerts = new ArrayList<>();
        for (String raw : screen.split("\n")) {
            String line = raw.stripTrailing();
            Matcher m;
            if (line.startsWith("rdmamon demo:")) {
                title = line.replaceFirst("\\s+records seen: \\d+$", "");
            } else if (line.startsWith("NODE ")) {
                portHeader = line;
            } else if (line.startsWith("JOB ")) {
                jobHeader = line;
            } else if ((m = ALERT_ROW.matcher(line)).matches()) {
                alerts.add(m.group(1) + " " + m.group(2));
            } else if ((m = JOB_ROW.matcher(line)).matches() && portHeader != null && jobHeader != null) {
                jobs.add(m.group(1));
            } else if ((m = PORT_ROW.matcher(line)).matches() && jobHeader == null) {
                ports.add(m.group(1) + " " + m.group(2));
            }
        }
        return new ReadmeDemoOutput(title, portHeader, ports, jobHeader, jobs, alerts);
    }

    /** The title with the broker's address (a new port at every run) replaced by {@code BROKER}. */
    public String titleWithoutBroker() {
        return title == null ? null : title.replaceFirst("broker \\S+?\\. ", "broker BROKER. ");
    }
}
