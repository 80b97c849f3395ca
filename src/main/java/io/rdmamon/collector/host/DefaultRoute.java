package io.rdmamon.collector.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The interface of a network namespace's default route, from its route table in the format of {@code
 * /proc/net/route} (columns Iface, Destination, Gateway, Flags, RefCnt, Use, Metric, ...; hexadecimal destination
 * 00000000 is the default route; flag 0x1 is RTF_UP). With several default routes the one of lowest metric wins, as
 * in the kernel. {@code /proc/1/net/route} is the table of process 1's namespace: the host's in a container that
 * shares the host's PID namespace (the DaemonSet's {@code hostPID: true}), or on the host itself.
 */
public final class DefaultRoute {
    private DefaultRoute() {
    }

    /** Empty when the file cannot be read or holds no default route that is up. */
    public static Optional<String> interfaceOf(Path routeTable) {
        try {
            return interfaceOf(Files.readAllLines(routeTable));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    static Optional<String> interfaceOf(List<String> lines) {
        String best = null;
        long bestMetric = Long.MAX_VALUE;
        for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
            String[] cols = line.trim().split("\\s+");
            if (cols.length < 7 || !cols[1].equals("00000000")) {
                continue;
            }
            try {
                boolean up = (Integer.parseInt(cols[3], 16) & 0x1) != 0;
                long metric = Long.parseLong(cols[6]);
                if (up && metric < bestMetric) {
                    best = cols[0];
                    bestMetric = metric;
                }
            } catch (NumberFormatException e) {
                // not a route line
            }
        }
        return Optional.ofNullable(best);
    }
}
