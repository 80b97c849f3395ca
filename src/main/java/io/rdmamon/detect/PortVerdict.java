package io.rdmamon.detect;

import io.rdmamon.model.Alert;
import io.rdmamon.model.LinkHealth;

/** What {@link PortJudge} says about a port sample: a link-health record or an alert (exactly one is set). */
public record PortVerdict(LinkHealth linkHealth, Alert alert) {
    static PortVerdict of(LinkHealth linkHealth) {
        return new PortVerdict(linkHealth, null);
    }

    static PortVerdict of(Alert alert) {
        return new PortVerdict(null, alert);
    }
}
