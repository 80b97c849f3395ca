package io.rdmamon.alerts;

import java.net.URI;

/** Receiver URLs may carry secrets (webhook paths and query strings often do): logs show scheme and host only. */
final class Redact {
    private Redact() {
    }

    static String url(URI uri) {
        if (uri == null) {
            return "(none)";
        }
        String port = uri.getPort() < 0 ? "" : ":" + uri.getPort();
        boolean hasMore = uri.getRawPath() != null && uri.getRawPath().length() > 1 || uri.getRawQuery() != null;
        return uri.getScheme() + "://" + uri.getHost() + port + (hasMore ? "/..." : "");
    }
}
