package io.rdmamon.alerts;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.rdmamon.model.Alert;
import io.rdmamon.model.ContractChecks;
import io.rdmamon.model.Json;
import io.rdmamon.model.Rejection;

import java.io.IOException;

/**
 * One alert record to deliver: the parsed {@link Alert} for receivers that map fields, and the record's exact JSON for
 * receivers that forward it as is (extra fields a newer producer added survive).
 */
record AlertMessage(Alert alert, byte[] json) {

    /**
     * Parses and checks a record value against the alert contract (v1, times and port in range as
     * {@link ContractChecks#alert} has them); the exception says what is wrong.
     */
    static AlertMessage parse(byte[] json) throws InvalidAlertException {
        Alert alert;
        try {
            alert = Json.MAPPER.readValue(json, Alert.class);
        } catch (JsonProcessingException e) {
            throw new InvalidAlertException("not a valid alert JSON object: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new InvalidAlertException("not a valid alert JSON object: " + e.getMessage());
        }
        if (alert == null) {
            throw new InvalidAlertException("not a valid alert JSON object: null");
        }
        if (alert.v() != Alert.VERSION) {
            throw new InvalidAlertException("unsupported alert schema version v=" + alert.v() + " (this rdmamon reads v="
                    + Alert.VERSION + ")");
        }
        if (isBlank(alert.id()) || isBlank(alert.type())) {
            throw new InvalidAlertException("alert without id or type");
        }
        if (!Alert.FIRING.equals(alert.status()) && !Alert.RESOLVED.equals(alert.status())) {
            throw new InvalidAlertException("alert status must be firing or resolved, not " + alert.status());
        }
        Rejection outOfRange = ContractChecks.alert(alert);
        if (outOfRange != null) {
            throw new InvalidAlertException(outOfRange.message());
        }
        return new AlertMessage(alert, json);
    }

    boolean firing() {
        return Alert.FIRING.equals(alert.status());
    }

    String id() {
        return alert.id();
    }

    private static boolean isBlank(String s) {
        return s == null || s.isBlank();
    }

    /** A record value that is not a deliverable alert; it goes to the dead-letter topic with this message. */
    static final class InvalidAlertException extends Exception {
        InvalidAlertException(String message) {
            super(message);
        }
    }
}
