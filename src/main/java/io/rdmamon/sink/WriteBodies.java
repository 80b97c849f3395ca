package io.rdmamon.sink;

import java.util.ArrayList;
import java.util.List;

/**
 * Collects the rendered points of a batch into request bodies of at most {@code maxPoints} lines each: the line
 * protocol is rendered once, by the converters, and only copied here.
 */
final class WriteBodies {
    private final int maxPoints;
    private final Utf8Buffer body;
    private List<WriteBody> full = new ArrayList<>();
    private int inBody;

    /**
     * {@code body} is where each body is assembled before it is copied out: reused from body to body, it grows to
     * a full body once instead of doubling its way up for every body (a third of the rendering's CPU otherwise).
     */
    WriteBodies(int maxPoints, Utf8Buffer body) {
        this.maxPoints = maxPoints;
        this.body = body;
        body.truncate(0);
    }

    /** Appends all lines of {@code lines}, starting a new body whenever one is full. */
    void add(PointLines lines) {
        int line = 0;
        while (line < lines.count()) {
            int take = Math.min(lines.count() - line, maxPoints - inBody);
            body.append(lines.bytes(), lines.end(line), lines.end(line + take));
            line += take;
            inBody += take;
            if (inBody == maxPoints) {
                flush();
            }
        }
    }

    /** Whether a body is started and not full yet. */
    boolean partial() {
        return inBody > 0;
    }

    /** The bodies filled since the last call. */
    List<WriteBody> takeFull() {
        List<WriteBody> taken = full;
        full = new ArrayList<>();
        return taken;
    }

    /** The bodies filled since the last call and the one started, short; none when no point was added. */
    List<WriteBody> finish() {
        if (inBody > 0) {
            flush();
        }
        return takeFull();
    }

    private void flush() {
        full.add(new WriteBody(body.copy(0, body.length()), inBody));
        body.truncate(0);
        inBody = 0;
    }
}
