package io.rdmamon.support;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The class lists the class-data archives are made from (src/main/cds) name rdmamon's classes as they are: a renamed
 * or removed class would silently drop out of the archive, and with it part of the start-up it saves. Regenerate the
 * lists with scripts/class-lists.
 */
class ClassListsTest {

    @ParameterizedTest
    @EnumSource(ClassDataArchive.class)
    void shouldNameOnlyRdmamonClassesThatExist(ClassDataArchive archive) throws IOException {
        List<String> rdmamonClasses = rdmamonClasses(archive);

        assertThat(rdmamonClasses).as("rdmamon classes in the %s list", archive).hasSizeGreaterThan(20);
        assertThat(rdmamonClasses).as("classes the %s list names that are gone: run scripts/class-lists", archive)
                .allSatisfy(name -> assertThat(ClassListsTest.class.getResource("/" + name + ".class")).isNotNull());
    }

    @ParameterizedTest
    @EnumSource(ClassDataArchive.class)
    void shouldListTheRolesEntryPointAndItsKafkaClient(ClassDataArchive archive) throws IOException {
        List<String> rdmamonClasses = rdmamonClasses(archive);
        String entryPoint = archive == ClassDataArchive.COLLECTOR ? "io/rdmamon/collector/CollectorMain"
                : "io/rdmamon/streams/StreamsApp";

        assertThat(rdmamonClasses).contains(entryPoint);
        assertThat(Files.readAllLines(list(archive))).contains("org/apache/kafka/clients/producer/KafkaProducer");
    }

    /** The list's rdmamon classes, without the JVM's generated ones (lambdas, proxies). */
    private static List<String> rdmamonClasses(ClassDataArchive archive) throws IOException {
        return Files.readAllLines(list(archive)).stream()
                .map(line -> line.split(" ")[0])
                .filter(name -> name.startsWith("io/rdmamon/") && !name.contains("$$Lambda"))
                .toList();
    }

    private static Path list(ClassDataArchive archive) {
        return Path.of("src/main/cds", archive.name().toLowerCase(Locale.ROOT) + ".classlist");
    }
}
