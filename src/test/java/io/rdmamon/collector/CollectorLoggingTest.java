package io.rdmamon.collector;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** The collector's logging in code matches logback.xml, and leaves the other roles to logback.xml. */
class CollectorLoggingTest {
    @AfterEach
    void clearProperty() {
        System.clearProperty(CollectorLogging.PROPERTY);
    }

    @Test
    void otherRolesGoOnToLogbackXml() {
        LoggerContext context = new LoggerContext();
        assertThat(new CollectorLogging().configure(context))
                .isEqualTo(Configurator.ExecutionStatus.INVOKE_NEXT_IF_ANY);
        assertThat(context.getLogger(Logger.ROOT_LOGGER_NAME).iteratorForAppenders().hasNext()).isFalse();
    }

    @Test
    void theCollectorLogsToStderrAtInfoAndKafkaAtWarn() {
        System.setProperty(CollectorLogging.PROPERTY, CollectorLogging.COLLECTOR);
        LoggerContext context = new LoggerContext();
        assertThat(new CollectorLogging().configure(context))
                .isEqualTo(Configurator.ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY);
        assertThat(context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("STDERR")).isNotNull();
        if (System.getenv("RDMAMON_LOG_LEVEL") == null) {
            assertThat(context.getLogger(Logger.ROOT_LOGGER_NAME).getLevel()).isEqualTo(Level.INFO);
        }
        if (System.getenv("RDMAMON_KAFKA_LOG_LEVEL") == null) {
            assertThat(context.getLogger("org.apache.kafka.clients.producer.KafkaProducer").getEffectiveLevel())
                    .isEqualTo(Level.WARN);
        }
    }

    @Test
    void thePatternIsLogbackXmls() throws Exception {
        try (InputStream xml = CollectorLoggingTest.class.getResourceAsStream("/logback.xml")) {
            assertThat(new String(xml.readAllBytes(), StandardCharsets.UTF_8))
                    .contains("<pattern>" + CollectorLogging.PATTERN + "</pattern>");
        }
    }
}
