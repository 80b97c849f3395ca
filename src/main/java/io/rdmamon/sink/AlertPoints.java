package io.rdmamon.sink;

import io.rdmamon.model.Alert;
import io.rdmamon.model.ContractChecks;
import io.rdmamon.model.Rejection;

import java.util.regex.Pattern;

import static io.rdmamon.influx.Schema.*;

/**
 * {@link Alert} → one {@code alert} point: a firing record at {@code detectedAt}, a resolved one at {@code endsAt}.
 * The incident id is a field (a tag per incident would grow the series index forever); firing and resolved differ in
 * the {@code status} tag, so they never overwrite each other.
 */
final class AlertPoints implements PointConverter<Alert> {
    private static final Pattern SINGLE_RANK = Pattern.compile("\\d{1,6}");

    @Override
    public Class<Alert> type() {
        return Alert.class;
    }

    @Override
    public void render(Alert a, PointLines points) {
        PointConverter.checkVersion(a.v(), Alert.VERSION);
        PointConverter.required(a.id(), "id");
        PointConverter.required(a.type(), "type");
        PointConverter.requiredTime(a.detectedAt(), "detectedAt");
        Rejection outOfRange = ContractChecks.alert(a);
        if (outOfRange != null) {
            throw new InvalidRecordException(outOfRange);
        }
        boolean firing = Alert.FIRING.equals(a.status());
        if (!firing && !Alert.RESOLVED.equals(a.status())) {
            throw new IllegalArgumentException("status must be firing or resolved, not " + a.status());
        }
        long time = firing || a.endsAt() == null ? a.detectedAt() : a.endsAt();
        String ranks = a.labels().getOrDefault(RANKS, a.labels().get(RANK));
        SchemaPoint.of(ALERT, time)
                .tag(TYPE, a.type()).tag(STATUS, a.status()).tag(SEVERITY, a.severity())
                .tag(JOB, a.job()).tag(NAMESPACE, a.namespace())
                .tag(NODE, a.node()).tag(DEVICE, a.device()).tag(PORT, a.port())
                .tag(JOB_UID, a.labels().get("uid"))
                .tag(RANK, singleRank(ranks))
                .field(ID, a.id())
                .field(SUMMARY, a.summary())
                .field(RANKS, ranks)
                .field(FIRING, firing ? 1L : 0L)
                .field(STARTS_AT_MS, a.startsAt())
                .field(DETECTED_AT_MS, a.detectedAt())
                .field(ENDS_AT_MS, a.endsAt())
                .field(DETECTION_DELAY_SECONDS, (a.detectedAt() - a.startsAt()) / 1000.0)
                .field(DURATION_SECONDS, a.endsAt() == null ? null : (a.endsAt() - a.startsAt()) / 1000.0)
                .addTo(points);
    }

    /** Only one rank number is a tag; a list ("4,5") or free text stays in the {@code ranks} field. */
    private static String singleRank(String ranks) {
        return ranks != null && SINGLE_RANK.matcher(ranks.strip()).matches() ? ranks.strip() : null;
    }
}
