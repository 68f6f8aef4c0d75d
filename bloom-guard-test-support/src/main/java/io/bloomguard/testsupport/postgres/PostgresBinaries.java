package io.bloomguard.testsupport.postgres;

import org.jspecify.annotations.Nullable;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The installed PostgreSQL server binaries: {@code postgres} on {@code PATH}, else the newest
 * {@code /usr/lib/postgresql/<version>/bin} (Debian's {@code postgresql} package puts them there, off {@code PATH}).
 * Looked up once per JVM.
 */
final class PostgresBinaries {

    private static final Path DEBIAN_ROOT = Path.of("/usr/lib/postgresql");

    private PostgresBinaries() {
    }

    /** The directory holding {@code postgres} and {@code initdb}; {@code null} when none is installed. */
    static @Nullable Path dir() {
        return Holder.DIR;
    }

    private static @Nullable Path find() {
        String pathVariable = System.getenv("PATH");
        if (pathVariable != null) {
            for (String dir : pathVariable.split(File.pathSeparator)) {
                Path candidate = dir.isEmpty() ? null : Path.of(dir, "postgres");
                if (candidate != null && Files.isExecutable(candidate)) {
                    // PATH often holds links (/usr/local/bin/postgres): initdb lies beside the real file.
                    Path binDir = realPath(candidate).getParent();
                    if (Files.isExecutable(binDir.resolve("initdb"))) {
                        return binDir;
                    }
                }
            }
        }
        if (!Files.isDirectory(DEBIAN_ROOT)) {
            return null;
        }
        try (Stream<Path> versions = Files.list(DEBIAN_ROOT)) {
            return versions.map((version) -> version.resolve("bin"))
                .filter((bin) -> Files.isExecutable(bin.resolve("postgres")) && Files.isExecutable(bin.resolve("initdb")))
                .max(Comparator.comparingInt(PostgresBinaries::majorVersion))
                .orElse(null);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private static int majorVersion(Path bin) {
        try {
            return Integer.parseInt(bin.getParent().getFileName().toString());
        }
        catch (NumberFormatException ex) {
            return 0;
        }
    }

    private static Path realPath(Path file) {
        try {
            return file.toRealPath();
        }
        catch (IOException ex) {
            return file.toAbsolutePath();
        }
    }

    private static final class Holder {

        static final @Nullable Path DIR = find();

    }

}
