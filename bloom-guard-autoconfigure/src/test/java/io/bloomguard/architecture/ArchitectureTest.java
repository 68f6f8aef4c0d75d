package io.bloomguard.architecture;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import java.util.Set;
import java.util.stream.Stream;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dependency rules of docs/design.md, read from the compiled main classes: no cycle between packages, and the
 * Redis backend cut by stability (the API assembles the engine and the kinds; the engine reaches a kind only
 * through the kind SPI; kinds and the port depend on neither).
 */
class ArchitectureTest {

    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.bloomguard");

    @Test
    void noPackageDependsOnAPackageThatDependsOnIt() {
        slices().matching("io.bloomguard.(**)").should().beFreeOfCycles().check(MAIN);
    }

    @Test
    void theEngineReachesAKindOnlyThroughTheKindSpiAndNeverTheApi() {
        noClasses().that().resideInAPackage("io.bloomguard.redis.engine..")
                .should().dependOnClassesThat().resideInAnyPackage("io.bloomguard.redis.kind.*..")
                .check(MAIN);
        noClasses().that().resideInAPackage("io.bloomguard.redis.engine..")
                .should().dependOnClassesThat().resideInAPackage("io.bloomguard.redis")
                .check(MAIN);
    }

    @Test
    void kindsDependOnNeitherTheEngineNorTheApiNorEachOther() {
        noClasses().that().resideInAPackage("io.bloomguard.redis.kind..")
                .should().dependOnClassesThat().resideInAnyPackage("io.bloomguard.redis.engine..",
                        "io.bloomguard.redis")
                .check(MAIN);
        for (String kind : new String[] { "plain", "counting", "layered" }) {
            noClasses().that().resideInAPackage("io.bloomguard.redis.kind." + kind)
                    .should().dependOnClassesThat().resideInAnyPackage(otherKinds(kind))
                    .check(MAIN);
        }
        noClasses().that().resideInAPackage("io.bloomguard.redis.kind")
                .should().dependOnClassesThat().resideInAnyPackage("io.bloomguard.redis.kind.plain",
                        "io.bloomguard.redis.kind.counting", "io.bloomguard.redis.kind.layered")
                .check(MAIN);
    }

    @Test
    void thePortDependsOnNoOtherPartOfTheBackend() {
        noClasses().that().resideInAPackage("io.bloomguard.redis.port")
                .should().dependOnClassesThat().resideInAnyPackage("io.bloomguard.redis",
                        "io.bloomguard.redis.engine..", "io.bloomguard.redis.kind..")
                .check(MAIN);
    }

    /** The engine's doors: the rest of it is package-private, free to change with no one outside to break. */
    @Test
    void onlyTheEnginesDoorsArePublic() {
        Set<String> doors = Set.of("RedisEngine", "FilterEngine", "FilterOptions", "EngineSettings", "ForeignFilter");
        for (JavaClass type : MAIN) {
            if (type.getPackageName().equals("io.bloomguard.redis.engine") && type.isTopLevelClass()
                    && type.getModifiers().contains(JavaModifier.PUBLIC)) {
                assertThat(doors).as("public in the engine").contains(type.getName()
                        .substring("io.bloomguard.redis.engine.".length()));
            }
        }
    }

    private static String[] otherKinds(String kind) {
        return Stream.of("plain", "counting", "layered").filter(other -> !other.equals(kind))
                .map(other -> "io.bloomguard.redis.kind." + other).toArray(String[]::new);
    }
}
