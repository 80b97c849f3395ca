package io.rdmamon.detect;

import io.rdmamon.model.Alert;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The open incidents of one detector, in a changelogged store: turns observations into exactly one {@code firing}
 * and one {@code resolved} alert per incident. Because the store and the alerts are committed in the same
 * exactly-once transaction, a restart neither repeats nor loses an alert. Store keys: {@code stateKey|subjectKey} for
 * the open incident, {@code stateKey|subjectKey|ended} for when the subject's last incident ended: a condition said
 * to have begun before that is part of the incident already reported and is not reported again.
 */
public final class IncidentBook {
    private static final StringSerializer KEYS = new StringSerializer();
    private static final String ENDED = "|ended";

    private final String type;
    private final KeyValueStore<String, Alert> open;

    public IncidentBook(String type, KeyValueStore<String, Alert> open) {
        this.type = type;
        this.open = open;
    }

    /** The alert to publish for this observation, or null when it changes nothing. */
    public Alert apply(String stateKey, Observation observation) {
        String key = stateKey + "|" + observation.subject().key();
        Alert existing = open.get(key);
        Condition condition = observation.condition();
        if (condition != null) {
            Alert ended = open.get(key + ENDED);
            if (existing != null || ended != null && condition.since() < ended.endsAt()) {
                return null;
            }
            Subject s = observation.subject();
            Alert firing = new Alert(Alert.VERSION, id(type, key, condition.since()), type, Alert.FIRING,
                    condition.severity(), s.job(), s.namespace(), s.node(), s.device(), s.port(), condition.since(),
                    Math.max(observation.at(), condition.since()), null, condition.summary(), condition.labels());
            open.put(key, firing);
            return firing;
        }
        if (existing == null) {
            return null;
        }
        open.delete(key);
        Alert resolved = resolved(existing, observation.at());
        open.put(key + ENDED, resolved);
        return resolved;
    }

    /** Resolves every open incident of {@code stateKey} at {@code at}, and forgets the subject's past ones. */
    public List<Alert> closeAll(String stateKey, long at) {
        List<KeyValue<String, Alert>> found = new ArrayList<>();
        try (KeyValueIterator<String, Alert> it = open.prefixScan(stateKey + "|", KEYS)) {
            it.forEachRemaining(found::add);
        }
        List<Alert> out = new ArrayList<>();
        for (KeyValue<String, Alert> entry : found) {
            open.delete(entry.key);
            if (!entry.key.endsWith(ENDED)) {
                out.add(resolved(entry.value, at));
            }
        }
        return out;
    }

    public static Alert resolved(Alert firing, long at) {
        return new Alert(firing.v(), firing.id(), firing.type(), Alert.RESOLVED, firing.severity(), firing.job(),
                firing.namespace(), firing.node(), firing.device(), firing.port(), firing.startsAt(),
                firing.detectedAt(), Math.max(at, firing.startsAt()), firing.summary(), firing.labels());
    }

    /** Stable for one incident: the same type, subject and start always give the same id. */
    static String id(String type, String subjectKey, long startsAt) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            byte[] digest = sha.digest((type + "|" + subjectKey + "|" + startsAt).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 10);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JVM", e);
        }
    }
}
