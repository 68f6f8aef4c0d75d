package io.bloomguard.testsupport.redis;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The RedisBloom module ({@code BF.*}, {@code CF.*}) that tests of the native kinds load into their
 * {@code redis-server}: a {@code .so} named by the system property {@value #SYSTEM_PROPERTY} or, without it, the
 * environment variable {@value #ENVIRONMENT_VARIABLE}. Redis 7.0 has no such commands of its own, so without a
 * module those tests are skipped, saying which variable to set.
 *
 * <p>Usage: {@code RedisBloomModule.assumeAvailable(); try (RedisServerProcess redis =
 * RedisServerProcess.startWithRedisBloom()) { ... }}, or a parameter {@code @WithRedisBloom RedisServerProcess redis}
 * with {@link RedisServerExtension}.
 */
public final class RedisBloomModule {

    /** The environment variable naming the module; {@code .ci/run} sets it when it has one. */
    public static final String ENVIRONMENT_VARIABLE = "REDISBLOOM_MODULE";

    /** The system property naming the module; wins over {@link #ENVIRONMENT_VARIABLE}. */
    public static final String SYSTEM_PROPERTY = "redisbloom.module";

    private RedisBloomModule() {
    }

    /** The module's file as configured, whether or not it exists. */
    public static Optional<Path> path() {
        return path(System.getProperty(SYSTEM_PROPERTY), System.getenv(ENVIRONMENT_VARIABLE));
    }

    static Optional<Path> path(@Nullable String property, @Nullable String environment) {
        String configured = (property != null && !property.isBlank()) ? property : environment;
        return (configured == null || configured.isBlank()) ? Optional.empty()
                : Optional.of(Path.of(configured.strip()).toAbsolutePath());
    }

    /** Whether a module is configured and its file exists. */
    public static boolean available() {
        return path().filter(Files::isRegularFile).isPresent();
    }

    /**
     * The {@code redis-server} options that load the module: {@code --loadmodule <path>}.
     * @throws IllegalStateException if no module is {@link #available()}
     */
    public static List<String> loadModuleArguments() {
        if (!available()) {
            throw new IllegalStateException(unavailableReason());
        }
        return List.of("--loadmodule", path().orElseThrow().toString());
    }

    /** Skips the calling test (a JUnit assumption) unless a module is {@link #available()}. */
    public static void assumeAvailable() {
        Assumptions.assumeTrue(available(), RedisBloomModule::unavailableReason);
    }

    /** Why there is no module, and what to set: the message of a skipped test. */
    static String unavailableReason() {
        String what = path().map((path) -> "The RedisBloom module " + path + " does not exist")
            .orElse("No RedisBloom module is configured");
        return what + ": tests of the native BF.*/CF.* kinds are skipped. Set " + ENVIRONMENT_VARIABLE
                + " (or -D" + SYSTEM_PROPERTY + ") to a RedisBloom module's .so, such as a build of RedisBloom 2.6 for"
                + " the installed redis-server";
    }

}
