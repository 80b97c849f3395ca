package io.rdmamon;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;

import java.util.Arrays;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The packages' floors (README, "Layers"): every import of rdmamon's own code runs down them. A failure names the
 * class, the member and the line that reach up; move what both floors need down instead. The tests are left out: they
 * may drive a role through the command line from any package.
 */
@AnalyzeClasses(packages = "io.rdmamon", importOptions = ImportOption.DoNotIncludeTests.class)
class LayersTest {

    /** The floors, top first: each may use the ones below it, none above. */
    private static final String[][] FLOORS = {
            {"cli"},
            {"evaluate", "bench", "replay", "demo"},
            {"streams"},
            {"detect", "clock", "scenario"},
            {"jobs", "sim"},
            {"sink", "capacity", "collector", "alerts"},
            {"influx", "access", "state"},
            {"support", "model", "config", "metrics"},
    };

    @ArchTest
    static final ArchRule importsRunDownTheFloors = floors();

    @ArchTest
    static final ArchRule everyPackageIsOnAFloor = classes().that().resideInAPackage("io.rdmamon..")
            .should().resideInAnyPackage(packagesOf(0, FLOORS.length))
            .as("every rdmamon package is on a floor of LayersTest (README, \"Layers\")");

    @ArchTest
    static final ArchRule noCyclesBetweenPackages = slices().matching("io.rdmamon.(*)..").should().beFreeOfCycles();

    @ArchTest
    static final ArchRule recordContractsWithoutKafkaStreams = noClasses().that().resideInAPackage("io.rdmamon.model..")
            .should().dependOnClassesThat().resideInAPackage("org.apache.kafka.streams..")
            .as("model (the record contracts) does not use Kafka Streams");

    private static LayeredArchitecture floors() {
        LayeredArchitecture layers = layeredArchitecture().consideringOnlyDependenciesInLayers();
        for (int floor = 0; floor < FLOORS.length; floor++) {
            layers = layers.layer(name(floor)).definedBy(packagesOf(floor, floor + 1));
        }
        for (int floor = 1; floor < FLOORS.length; floor++) {
            String[] above = new String[floor];
            for (int upper = 0; upper < floor; upper++) {
                above[upper] = name(upper);
            }
            layers = layers.whereLayer(name(floor)).mayOnlyBeAccessedByLayers(above);
        }
        return layers.whereLayer(name(0)).mayNotBeAccessedByAnyLayer();
    }

    private static String name(int floor) {
        return String.join("/", FLOORS[floor]);
    }

    /** The package patterns of floors {@code from} to {@code to} (exclusive), subpackages included. */
    private static String[] packagesOf(int from, int to) {
        return Arrays.stream(FLOORS, from, to).flatMap(Arrays::stream)
                .map(name -> "io.rdmamon." + name + "..").toArray(String[]::new);
    }
}
