package io.bloomguard.testsupport.redis;

import redis.embedded.core.ExecutableProvider;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code redis-server} executable the harness runs: the one on {@code PATH} when there is one, so a
 * developer or CI image can pin a version, else the 6.2 binary bundled in embedded-redis, so the tests
 * also run on a machine with no Redis installed (benchmarks leave embedded-redis out: they measure the installed
 * server). Looked up once per JVM.
 *
 * <p>Usage: {@code new ProcessBuilder(RedisServerBinary.path().toString(), "--port", "6380")}.
 */
public final class RedisServerBinary {

    private static final Pattern VERSION = Pattern.compile("v=(\\d+)\\.(\\d+)\\.(\\d+)");

    private RedisServerBinary() {
    }

    /** Absolute path of the executable. */
    public static Path path() {
        return Holder.PATH;
    }

    /**
     * The executable a Sentinel runs: {@code redis-sentinel} beside {@link #path()} when there is one (Debian's
     * {@code redis-sentinel} package), else {@link #path()} itself, which runs as a Sentinel given {@code --sentinel}.
     */
    static Path sentinelPath() {
        Path sibling = path().resolveSibling("redis-sentinel");
        return Files.isExecutable(sibling) ? sibling : path();
    }

    /** Version the executable reports, such as {@code 7.0.15}. */
    public static String version() {
        return Holder.VERSION;
    }

    /** Major version, to pass options that older servers reject as unknown. */
    static int majorVersion() {
        Matcher matcher = VERSION.matcher("v=" + version());
        return matcher.find() ? Integer.parseInt(matcher.group(1)) : 0;
    }

    private static Path find() {
        String pathVariable = System.getenv("PATH");
        if (pathVariable != null) {
            for (String dir : pathVariable.split(File.pathSeparator)) {
                if (dir.isEmpty()) {
                    continue;
                }
                Path candidate = Path.of(dir, "redis-server");
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                    return candidate.toAbsolutePath();
                }
            }
        }
        try {
            return EmbeddedRedisBinary.extract();
        }
        catch (NoClassDefFoundError ex) {
            throw new IllegalStateException("No redis-server on PATH, and no embedded-redis on the classpath to "
                    + "stand in for it: install redis-server, or add com.github.codemonstur:embedded-redis", ex);
        }
    }

    private static String readVersion(Path executable) {
        try {
            Process process = new ProcessBuilder(executable.toString(), "--version").redirectErrorStream(true).start();
            String output;
            try (InputStream in = process.getInputStream()) {
                output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
            Matcher matcher = VERSION.matcher(output);
            if (!matcher.find()) {
                throw new IllegalStateException(executable + " --version printed no version: " + output);
            }
            return matcher.group(1) + "." + matcher.group(2) + "." + matcher.group(3);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot run " + executable + " --version", ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while reading the redis-server version", ex);
        }
    }

    /** The binary bundled in embedded-redis, in a class of its own so that nothing else needs that jar. */
    private static final class EmbeddedRedisBinary {

        static Path extract() {
            try {
                File bundled = ExecutableProvider.newJarResourceProvider().get();
                // The provider copies the binary out of the jar; on some versions the copy loses its x bit.
                if (!bundled.canExecute() && !bundled.setExecutable(true)) {
                    throw new IllegalStateException("Cannot make " + bundled + " executable");
                }
                return bundled.toPath().toAbsolutePath();
            }
            catch (IOException ex) {
                throw new UncheckedIOException("No redis-server on PATH and the embedded-redis binary is unavailable",
                        ex);
            }
        }

    }

    private static final class Holder {

        static final Path PATH = find();

        static final String VERSION = readVersion(PATH);

    }

}
