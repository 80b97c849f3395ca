package io.rdmamon.influx;

import okhttp3.Credentials;
import okhttp3.OkHttpClient;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How rdmamon authenticates to InfluxDB: nothing, a 1.x user and password (HTTP Basic, which 1.x and the 2.x v1
 * compatibility API accept), or a 2.x / 3 Core token ({@code Authorization: Token <t>}). The secret is sent as a
 * header only, never in a URL, and {@link #toString()} never shows it, so it cannot end up in a log line.
 */
public final class InfluxCredentials {
    public enum Kind { NONE, PASSWORD, TOKEN }

    private final Kind kind;
    private final String username;
    private final String secret;

    private InfluxCredentials(Kind kind, String username, String secret) {
        this.kind = kind;
        this.username = username;
        this.secret = secret;
    }

    public static InfluxCredentials none() {
        return new InfluxCredentials(Kind.NONE, null, null);
    }

    public static InfluxCredentials password(String username, String password) {
        return new InfluxCredentials(Kind.PASSWORD, username, password);
    }

    public static InfluxCredentials token(String token) {
        return new InfluxCredentials(Kind.TOKEN, null, token);
    }

    /**
     * From the settings: a secret comes either inline ({@code influx.password}, {@code influx.token}, which the
     * environment sets as {@code RDMAMON_INFLUX_PASSWORD} / {@code RDMAMON_INFLUX_TOKEN}) or from a file (its content,
     * trailing newline removed, e.g. a mounted Kubernetes secret). Ambiguous combinations are configuration errors.
     */
    static InfluxCredentials resolve(String username, Password password, String passwordFile, Password token,
                                     String tokenFile) {
        String pw = secret(InfluxSettings.PASSWORD_CONFIG, password, InfluxSettings.PASSWORD_FILE_CONFIG,
                passwordFile);
        String tk = secret(InfluxSettings.TOKEN_CONFIG, token, InfluxSettings.TOKEN_FILE_CONFIG, tokenFile);
        if (pw != null && tk != null) {
            throw new ConfigException("set either a password or a token for InfluxDB, not both");
        }
        if (tk != null) {
            return token(tk);
        }
        if (pw != null) {
            if (username == null || username.isBlank()) {
                throw new ConfigException(InfluxSettings.USERNAME_CONFIG + " is required with a password");
            }
            return password(username, pw);
        }
        return none();
    }

    public Kind kind() {
        return kind;
    }

    /** Adds the Authorization header to every request made by clients built from {@code builder}. */
    public OkHttpClient.Builder applyTo(OkHttpClient.Builder builder) {
        String header = authorizationHeader();
        if (header != null) {
            builder.addInterceptor(chain -> chain.proceed(
                    chain.request().newBuilder().header("Authorization", header).build()));
        }
        return builder;
    }

    /** The value of an {@code Authorization} header for plain HTTP clients, or null. */
    public String authorizationHeader() {
        return switch (kind) {
            case NONE -> null;
            case PASSWORD -> Credentials.basic(username, secret, StandardCharsets.UTF_8);
            case TOKEN -> "Token " + secret;
        };
    }

    @Override
    public String toString() {
        return switch (kind) {
            case NONE -> "no authentication";
            case PASSWORD -> "user " + username + " with password [hidden]";
            case TOKEN -> "token [hidden]";
        };
    }

    private static String secret(String inlineKey, Password inline, String fileKey, String file) {
        boolean hasInline = inline != null && inline.value() != null && !inline.value().isEmpty();
        boolean hasFile = file != null && !file.isBlank();
        if (hasInline && hasFile) {
            throw new ConfigException("set either " + inlineKey + " or " + fileKey + ", not both");
        }
        if (hasInline) {
            return inline.value();
        }
        if (!hasFile) {
            return null;
        }
        try {
            String content = Files.readString(Path.of(file), StandardCharsets.UTF_8).strip();
            if (content.isEmpty()) {
                throw new ConfigException(fileKey + ": file " + file + " is empty");
            }
            return content;
        } catch (IOException e) {
            // the message names the file, never its content
            throw new ConfigException(fileKey + ": cannot read " + file + " (" + e.getClass().getSimpleName() + ")");
        }
    }
}
