package io.rdmamon.collector;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;
import org.slf4j.Logger;

/**
 * The collector's logging set up in code: what {@code logback.xml} sets up for the collector (stderr, the same pattern,
 * {@code RDMAMON_LOG_LEVEL} and {@code RDMAMON_KAFKA_LOG_LEVEL}), without logback's XML configurator, which loads some
 * 600 classes (logback's Joran and the JDK's XML parser) at every start of the node agent. Logback finds it through
 * {@code META-INF/services} and asks it before reading {@code logback.xml}; it acts only in the collector's own entry
 * point ({@link CollectorMain} sets {@link #PROPERTY}), so the other roles keep {@code logback.xml}.
 */
public final class CollectorLogging extends ContextAwareBase implements Configurator {
    public static final String PROPERTY = "rdmamon.logging";
    public static final String COLLECTOR = "collector";
    /** As in logback.xml. */
    static final String PATTERN = "%d{HH:mm:ss.SSS} %-5level [%thread] %logger{0} - %msg%n";

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        if (!COLLECTOR.equals(System.getProperty(PROPERTY))) {
            return ExecutionStatus.INVOKE_NEXT_IF_ANY;
        }
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern(PATTERN);
        encoder.start();
        ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
        stderr.setContext(context);
        stderr.setName("STDERR");
        stderr.setTarget("System.err");
        stderr.setEncoder(encoder);
        stderr.start();
        ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(level("RDMAMON_LOG_LEVEL", "INFO"));
        root.addAppender(stderr);
        context.getLogger("org.apache.kafka").setLevel(level("RDMAMON_KAFKA_LOG_LEVEL", "WARN"));
        // gRPC asks for SO_KEEPALIVE, which unix sockets lack: netty would warn on every kubelet connection
        context.getLogger("io.grpc.netty.shaded.io.netty.bootstrap").setLevel(Level.ERROR);
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }

    /** As logback.xml's {@code ${NAME:-default}}: a system property, else the environment, else the default. */
    private static Level level(String name, String otherwise) {
        String value = System.getProperty(name, System.getenv(name));
        return Level.toLevel(value == null ? otherwise : value);
    }
}
