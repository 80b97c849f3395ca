package io.rdmamon.scenario;

/** A node's collector publishes nothing in [{@code fromMs}, {@code untilMs}): the node's traffic goes on, unseen. */
public record CollectorOutage(String node, long fromMs, long untilMs) {

    public boolean covers(String nodeName, long t) {
        return node.equals(nodeName) && t >= fromMs && t < untilMs;
    }
}
