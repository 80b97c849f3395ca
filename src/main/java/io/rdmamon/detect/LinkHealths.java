package io.rdmamon.detect;

import io.rdmamon.jobs.AssignedSample;
import io.rdmamon.jobs.Holder;
import io.rdmamon.model.LinkHealth;
import io.rdmamon.model.PortSample;

/** A port sample as a {@link LinkHealth} record: utilisation of the nominal rate, state, errors by class, holder. */
final class LinkHealths {
    private LinkHealths() {
    }

    static LinkHealth of(AssignedSample assigned) {
        PortSample s = assigned.sample();
        Holder holder = assigned.assignment().primary();
        return new LinkHealth(LinkHealth.VERSION, s.node(), s.device(), s.port(), s.ts(), s.state(), s.physState(),
                s.rateBytesPerSec(), s.txBytesPerSec(), s.rxBytesPerSec(),
                utilisation(s.txBytesPerSec(), s.rateBytesPerSec()), utilisation(s.rxBytesPerSec(),
                s.rateBytesPerSec()), PortErrors.byClass(s), holder == null ? null : holder.uid(),
                holder == null ? null : holder.namespace(), holder == null ? null : assigned.assignment().sharedBy());
    }

    /** Fraction of the nominal rate, null when either is unknown (or the rate is 0). */
    static Double utilisation(Double bytesPerSec, Long rateBytesPerSec) {
        if (bytesPerSec == null || rateBytesPerSec == null || rateBytesPerSec <= 0) {
            return null;
        }
        return bytesPerSec / rateBytesPerSec;
    }
}
