package io.rdmamon.collector.publish;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;

final class Ports {
    private Ports() {
    }

    /** A local port nothing listens on (it was free a moment ago): a Kafka that is down. */
    static int closedPort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
