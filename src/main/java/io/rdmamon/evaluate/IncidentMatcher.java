package io.rdmamon.evaluate;

import io.rdmamon.model.Alert;
import io.rdmamon.scenario.Incident;

import java.util.Objects;

/**
 * Whether an alert reports an incident: same type, same subject, detected within [onset, end + slack].
 *
 * <p>The subject fields that identify an incident of each type must be present in the alert and equal: the job for
 * {@code STALLED_SYNC}, {@code TCP_FALLBACK} and {@code GPU_IDLE}; job and node for {@code STRAGGLER}; node, device and
 * port for {@code LINK_*}; the node for {@code COLLECTOR_SILENT}; node and device (the GPU) for {@code GPU_LOST}; every
 * field the incident names for other types. Other fields are compared only when both
 * sides have them. An alert's {@code job} may carry the job's uid or its name.
 */
public final class IncidentMatcher {
    private final long slackMs;

    /** @param slackMs how long after an incident's end a detection still counts (its alert may lag the end). */
    public IncidentMatcher(long slackMs) {
        if (slackMs < 0) {
            throw new IllegalArgumentException("slack must be >= 0 ms, got " + slackMs);
        }
        this.slackMs = slackMs;
    }

    public long slackMs() {
        return slackMs;
    }

    /** @param scenarioEndMs the end used for incidents that last until the scenario's end ({@code endMs} null). */
    public boolean matches(Incident incident, Alert alert, long scenarioEndMs) {
        if (!incident.type().equals(alert.type())) {
            return false;
        }
        long end = incident.endMs() != null ? incident.endMs() : scenarioEndMs;
        if (alert.detectedAt() < incident.onsetMs() || alert.detectedAt() > end + slackMs) {
            return false;
        }
        return sameSubject(incident, alert);
    }

    static boolean sameSubject(Incident incident, Alert alert) {
        boolean keysPresent = switch (incident.type()) {
            case Alert.STALLED_SYNC, Alert.TCP_FALLBACK, Alert.GPU_IDLE -> alert.job() != null;
            case Alert.STRAGGLER -> alert.job() != null && alert.node() != null;
            case Alert.LINK_DOWN, Alert.LINK_DEGRADED, Alert.LINK_IDLE ->
                    alert.node() != null && alert.device() != null && alert.port() != null;
            case Alert.COLLECTOR_SILENT -> alert.node() != null;
            case Alert.GPU_LOST -> alert.node() != null && alert.device() != null;
            default -> (incident.job() == null || alert.job() != null)
                    && (incident.node() == null || alert.node() != null)
                    && (incident.device() == null || alert.device() != null)
                    && (incident.port() == null || alert.port() != null);
        };
        return keysPresent
                && (incident.job() == null || alert.job() == null
                    || alert.job().equals(incident.job()) || alert.job().equals(incident.jobName()))
                && agrees(incident.node(), alert.node())
                && agrees(incident.device(), alert.device())
                && agrees(incident.port(), alert.port());
    }

    private static boolean agrees(Object expected, Object actual) {
        return expected == null || actual == null || Objects.equals(expected, actual);
    }
}
