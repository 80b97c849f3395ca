package io.rdmamon.detect;

/**
 * What an alert is about. {@code key} identifies it within its detector's state (a port key, a job uid, a job's
 * port); the other fields are copied into the alert where they apply (null otherwise). {@code job} is the job's
 * name; its uid goes into the labels.
 */
public record Subject(String key, String job, String namespace, String node, String device, Integer port) {
    public static Subject node(String node) {
        return new Subject(node, null, null, node, null, null);
    }
}
