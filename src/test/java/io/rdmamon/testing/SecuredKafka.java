package io.rdmamon.testing;

import io.rdmamon.access.RoleAcl;
import io.rdmamon.support.EmbeddedKafkaBroker;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.ResourcePatternFilter;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A locked-down single-node KRaft broker: SASL/SCRAM-SHA-512 over TLS on its only client listener (certificate made
 * here with the JDK's keytool), the KRaft {@code StandardAuthorizer} with {@code allow.everyone.if.no.acl.found=false},
 * and one SCRAM user per name given, stored at format time. {@code admin} is the only super user of the client
 * listener; the controller listener is PLAINTEXT on 127.0.0.1, its principal ANONYMOUS a super user as KRaft needs.
 */
public final class SecuredKafka implements AutoCloseable {
    public static final String ADMIN = "admin";
    private static final String STORE_PASSWORD = "store-secret";

    private final EmbeddedKafkaBroker broker;
    private final Path trustStore;
    private final Admin admin;

    private SecuredKafka(EmbeddedKafkaBroker broker, Path trustStore) {
        this.broker = broker;
        this.trustStore = trustStore;
        this.admin = Admin.create(new HashMap<>(clientSettings(ADMIN, password(ADMIN))));
    }

    /** Starts the broker in {@code dir} with a SCRAM user per name (password {@link #password}) besides admin. */
    public static SecuredKafka start(Path dir, Collection<String> users) throws Exception {
        Path keyStore = dir.resolve("broker.p12");
        Path trustStore = dir.resolve("broker.pem");
        keytool("-genkeypair", "-alias", "broker", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
                "-dname", "CN=localhost", "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-storetype", "PKCS12",
                "-keystore", keyStore.toString(), "-storepass", STORE_PASSWORD, "-keypass", STORE_PASSWORD);
        keytool("-exportcert", "-rfc", "-alias", "broker", "-keystore", keyStore.toString(), "-storepass",
                STORE_PASSWORD, "-file", trustStore.toString());
        List<String> scram = new ArrayList<>();
        scram.add(scram(ADMIN));
        users.forEach(user -> scram.add(scram(user)));
        Map<String, String> settings = new HashMap<>();
        settings.put("sasl.enabled.mechanisms", "SCRAM-SHA-512");
        settings.put("sasl.mechanism.inter.broker.protocol", "SCRAM-SHA-512");
        settings.put("listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config", jaas(ADMIN, password(ADMIN)));
        settings.put("ssl.keystore.type", "PKCS12");
        settings.put("ssl.keystore.location", keyStore.toString());
        settings.put("ssl.keystore.password", STORE_PASSWORD);
        settings.put("ssl.key.password", STORE_PASSWORD);
        // the broker is its own inter-broker client: it trusts its certificate as the clients do
        settings.put("ssl.truststore.type", "PEM");
        settings.put("ssl.truststore.location", trustStore.toString());
        settings.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        settings.put("allow.everyone.if.no.acl.found", "false");
        settings.put("super.users", "User:" + ADMIN + ";User:ANONYMOUS");
        EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(dir.resolve("kafka"), 0, "SASL_SSL", settings, scram);
        return new SecuredKafka(broker, trustStore);
    }

    /** Each user's password: made of its name, so a test can also give a wrong one. */
    public static String password(String user) {
        return user + "-pw-7Yq";
    }

    /** Kafka client settings (no prefix) of {@code user} with {@code password}: SASL_SSL, SCRAM-SHA-512. */
    public Map<String, String> clientSettings(String user, String password) {
        return Map.of("bootstrap.servers", broker.bootstrapServers(),
                "security.protocol", "SASL_SSL",
                "sasl.mechanism", "SCRAM-SHA-512",
                "sasl.jaas.config", jaas(user, password),
                "ssl.truststore.type", "PEM",
                "ssl.truststore.location", trustStore.toString());
    }

    /** {@link #clientSettings} under {@code prefix} (e.g. {@code kafka.}), as a role's configuration takes them. */
    public Map<String, Object> roleSettings(String prefix, String user, String password) {
        Map<String, Object> out = new HashMap<>();
        clientSettings(user, password).forEach((key, value) -> out.put(prefix + key, value));
        return out;
    }

    public String bootstrapServers() {
        return broker.bootstrapServers();
    }

    /** Creates {@code topics} (two partitions each) as admin: the roles may not create topics. */
    public void createTopics(String... topics) throws ExecutionException, InterruptedException {
        admin.createTopics(Arrays.stream(topics).map(t -> new NewTopic(t, 2, (short) 1)).toList()).all().get();
    }

    /** Grants {@code acls} to {@code User:user} and waits until the broker has them. */
    public void grant(String user, List<RoleAcl> acls) throws ExecutionException, InterruptedException {
        List<AclBinding> bindings = acls.stream().map(acl -> acl.binding("User:" + user)).toList();
        admin.createAcls(bindings).all().get();
    }

    /** Removes every ACL of {@code User:user}. */
    public void revokeAll(String user) throws ExecutionException, InterruptedException {
        admin.deleteAcls(List.of(new AclBindingFilter(ResourcePatternFilter.ANY, new AccessControlEntryFilter(
                "User:" + user, null, AclOperation.ANY, AclPermissionType.ANY)))).all().get();
    }

    public Admin admin() {
        return admin;
    }

    @Override
    public void close() {
        admin.close();
        broker.close();
    }

    private static String scram(String user) {
        return "SCRAM-SHA-512=[name=" + user + ",password=" + password(user) + "]";
    }

    private static String jaas(String user, String password) {
        return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user
                + "\" password=\"" + password + "\";";
    }

    private static void keytool(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IOException("keytool " + args[0] + " failed: " + output);
        }
    }
}
