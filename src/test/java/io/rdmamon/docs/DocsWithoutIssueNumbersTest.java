package io.rdmamon.docs;

import io.rdmamon.docs.OperatorDocs.Doc;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operator docs (README.md, docs/*.md) say what rdmamon does and how to run it, not which issue changed it: the
 * project's history is in CHANGELOG.md and docs/performance-history.md, which this test leaves alone.
 */
class DocsWithoutIssueNumbersTest {
    static final Pattern ISSUE = Pattern.compile("(?i)\\bissues?[ -]?#?\\d+");

    @Test
    void shouldCiteNoIssueNumberInTheOperatorDocs() {
        List<String> citations = new ArrayList<>();
        for (Doc doc : OperatorDocs.all()) {
            for (int i = 0; i < doc.lines().size(); i++) {
                Matcher m = ISSUE.matcher(doc.lines().get(i));
                while (m.find()) {
                    citations.add(doc.file() + ":" + (i + 1) + ": " + m.group());
                }
            }
        }
        assertThat(citations).as("issue citations in operator docs (history goes to CHANGELOG.md)").isEmpty();
    }

    @Test
    void shouldRecogniseTheWaysAnIssueIsCited() {
        assertThat(ISSUE.matcher("since issue 36's second part").find()).isTrue();
        assertThat(ISSUE.matcher("the merges of issues 42-44").find()).isTrue();
        assertThat(ISSUE.matcher("the issue-9 table's commit").find()).isTrue();
        assertThat(ISSUE.matcher("Issue 35's one rule").find()).isTrue();
        assertThat(ISSUE.matcher("a known issue with the driver").find()).isFalse();
    }
}
