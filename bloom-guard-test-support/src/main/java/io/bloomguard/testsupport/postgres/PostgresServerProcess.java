package io.bloomguard.testsupport.postgres;

import com.sun.security.auth.module.UnixSystem;
import io.bloomguard.testsupport.redis.LoopbackPorts;
import org.awaitility.core.ConditionTimeoutException;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.awaitility.Awaitility.await;

/**
 * One real PostgreSQL server on a loopback port, in a fresh data directory ({@code initdb}) under the temporary
 * directory, with {@code wal_level=logical} and room for several replication slots and WAL senders, and
 * {@code fsync=off} for speed. Tests of change feeds use it as the database another service writes to:
 * {@link #execute} plays that service, {@link #kill()} and {@link #restart()} a crash and the database coming back
 * on the same port with its data.
 *
 * <p>Usage: {@code try (PostgresServerProcess postgres = PostgresServerProcess.start()) { ... postgres.jdbcUrl() ... }}.
 * Skips the calling test (a JUnit assumption) when no PostgreSQL is installed ({@code .ci/run} installs Debian's
 * {@code postgresql}).
 *
 * <p>PostgreSQL refuses to run as root: under root (as CI runs) {@code initdb} and the server run as the
 * {@code postgres} system user, which then owns the directory. The server's password authentication is on
 * ({@code scram-sha-256}), so a client that drops the password fails as it would in production.
 *
 * <p>A JVM shutdown hook kills servers that a test forgot to close.
 *
 * <p>One job, one server's life (create, start, wait until ready, stop, kill, restart, reap), whose steps share its
 * directory, port and process: kept whole, as {@code RedisServerProcess} is, rather than split by line count.
 */
public final class PostgresServerProcess implements AutoCloseable {

    private static final String HOST = "127.0.0.1";

    private static final String USERNAME = "bloomguard";

    private static final String PASSWORD = "bloomguard-secret";

    private static final String DATABASE = "postgres";

    /** The system user the server runs as when the JVM runs as root. */
    private static final String SYSTEM_USER = "postgres";

    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(30);

    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

    private static final Set<PostgresServerProcess> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(PostgresServerProcess::reap),
                "postgres-reaper"));
    }

    private final Path binDir;

    private final Path dir;

    private final int port;

    /** The postmaster; volatile so the shutdown hook can kill it without a lock. */
    private volatile @Nullable ProcessHandle postmaster;

    private boolean closed;

    private PostgresServerProcess(Path binDir, Path dir, int port) {
        this.binDir = binDir;
        this.dir = dir;
        this.port = port;
    }

    /**
     * Creates a data directory and starts a server on a free loopback port, waiting until it accepts connections.
     * Skips the calling test when no PostgreSQL is installed.
     * @return the running server
     */
    public static PostgresServerProcess start() {
        Path binDir = PostgresBinaries.dir();
        Assumptions.assumeTrue(binDir != null, "No PostgreSQL installed (no postgres on PATH, none under "
                + "/usr/lib/postgresql/*/bin): install Debian's postgresql package, as .ci/run does");
        PostgresServerProcess server = new PostgresServerProcess(binDir, createTempDir(), LoopbackPorts.free(false));
        LIVE.add(server);
        try {
            server.initdb();
            server.launchAndAwaitReady();
            return server;
        }
        catch (RuntimeException ex) {
            server.close();
            throw ex;
        }
    }

    /** JDBC URL of the {@code postgres} database, such as {@code jdbc:postgresql://127.0.0.1:54321/postgres}. */
    public String jdbcUrl() {
        return "jdbc:postgresql://" + HOST + ":" + this.port + "/" + DATABASE;
    }

    /** A superuser's name (it may also replicate and create publications). */
    public String username() {
        return USERNAME;
    }

    /** {@link #username()}'s password. */
    public String password() {
        return PASSWORD;
    }

    /** Port the server listens on; the same after {@link #restart()}. */
    public int port() {
        return this.port;
    }

    /** Host the server listens on, always {@code 127.0.0.1}. */
    public String host() {
        return HOST;
    }

    /** A new connection as {@link #username()}, in auto-commit mode; the caller closes it. */
    public Connection connect() {
        try {
            return DriverManager.getConnection(jdbcUrl(), USERNAME, PASSWORD);
        }
        catch (SQLException ex) {
            throw new IllegalStateException("Cannot connect to " + this, ex);
        }
    }

    /**
     * Runs statements on a fresh connection, each committed on its own, as another service would.
     * @param sql statements such as {@code "insert into users values (1)"}
     */
    public void execute(String... sql) {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            for (String each : sql) {
                statement.execute(each);
            }
        }
        catch (SQLException ex) {
            throw new IllegalStateException("Statement failed on " + this + ": " + ex.getMessage(), ex);
        }
    }

    /**
     * Runs a query on a fresh connection and returns its first column, one string per row ({@code null} for SQL
     * NULL), such as {@code query("select slot_name from pg_replication_slots")}.
     */
    public List<@Nullable String> query(String sql) {
        try (Connection connection = connect(); Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(sql)) {
            List<@Nullable String> values = new ArrayList<>();
            while (rows.next()) {
                values.add(rows.getString(1));
            }
            return values;
        }
        catch (SQLException ex) {
            throw new IllegalStateException("Query failed on " + this + ": " + ex.getMessage(), ex);
        }
    }

    /** Whether the server process is alive. */
    public boolean isRunning() {
        ProcessHandle current = this.postmaster;
        return current != null && current.isAlive();
    }

    /**
     * Stops the server the way an administrator's fast shutdown does (SIGINT: connections are closed, then a
     * checkpoint), and waits until it is gone. {@link #restart()} starts it again.
     */
    public synchronized void stop() {
        ProcessHandle current = this.postmaster;
        if (current == null) {
            return;
        }
        signal(current, "INT");
        awaitExit(current, Set.of());
        this.postmaster = null;
    }

    /**
     * Kills the server and its backends with SIGKILL, as a crash or an OOM kill of the whole container would, and
     * waits until they are gone. Clients see their connections reset; {@link #restart()} runs crash recovery.
     */
    public synchronized void kill() {
        ProcessHandle current = this.postmaster;
        if (current == null) {
            return;
        }
        List<ProcessHandle> backends = current.descendants().toList();
        current.destroyForcibly();
        backends.forEach(ProcessHandle::destroyForcibly);
        awaitExit(current, Set.copyOf(backends));
        this.postmaster = null;
    }

    /** Stops the server if it runs (fast shutdown) and starts it again on the same port with the same data. */
    public synchronized void restart() {
        if (this.closed) {
            throw new IllegalStateException(this + " is closed");
        }
        stop();
        launchAndAwaitReady();
    }

    /** Kills the server and deletes its directory. Safe to call more than once. */
    @Override
    public synchronized void close() {
        this.closed = true;
        LIVE.remove(this);
        try {
            kill();
        }
        finally {
            deleteRecursively(this.dir);
        }
    }

    @Override
    public String toString() {
        return "PostgreSQL (" + this.binDir + ") on " + HOST + ":" + this.port;
    }

    private void initdb() {
        Path passwordFile = this.dir.resolve("password");
        try {
            Files.writeString(passwordFile, PASSWORD + "\n");
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        handOver(passwordFile);
        run(List.of(this.binDir.resolve("initdb").toString(), "--pgdata", dataDir().toString(), "--username",
                USERNAME, "--pwfile", passwordFile.toString(), "--auth", "scram-sha-256", "--encoding", "UTF8",
                "--no-locale", "--no-sync"), this.dir.resolve("initdb.log"));
    }

    private void launchAndAwaitReady() {
        List<String> command = asServerUser(List.of(this.binDir.resolve("postgres").toString(), "-D",
                dataDir().toString(), "-p", String.valueOf(this.port), "-c", "listen_addresses=" + HOST, "-c",
                "unix_socket_directories=" + this.dir, "-c", "wal_level=logical", "-c", "max_replication_slots=20",
                "-c", "max_wal_senders=20", "-c", "max_connections=100", "-c", "fsync=off", "-c",
                "full_page_writes=off"));
        Path log = this.dir.resolve("postgres.log");
        Process launcher;
        try {
            launcher = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
            launcher.getOutputStream().close();
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot start " + command, ex);
        }
        try {
            await(this + " accepting connections").atMost(STARTUP_TIMEOUT)
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(50))
                .pollInSameThread()
                .until(() -> !launcher.isAlive() || acceptsConnections());
        }
        catch (ConditionTimeoutException ex) {
            launcher.destroyForcibly();
            throw new IllegalStateException(this + " did not accept connections within "
                    + STARTUP_TIMEOUT.toSeconds() + " s; log:\n" + tail(log), ex);
        }
        if (!launcher.isAlive()) {
            throw new IllegalStateException(this + " exited with " + launcher.exitValue() + "; log:\n" + tail(log));
        }
        // Under root the launcher is runuser, which waits for the server: signals go to the postmaster itself.
        this.postmaster = postmasterPid().flatMap(ProcessHandle::of)
            .orElseThrow(() -> new IllegalStateException(this + " runs, but wrote no postmaster.pid"));
    }

    private boolean acceptsConnections() {
        try (Connection connection = DriverManager.getConnection(jdbcUrl(), USERNAME, PASSWORD)) {
            return connection.isValid(1);
        }
        catch (SQLException ex) {
            // Not listening yet, or still recovering ("the database system is starting up").
            return false;
        }
    }

    private Optional<Long> postmasterPid() {
        try {
            List<String> lines = Files.readAllLines(dataDir().resolve("postmaster.pid"));
            return lines.isEmpty() ? Optional.empty() : Optional.of(Long.parseLong(lines.get(0).trim()));
        }
        catch (IOException | NumberFormatException ex) {
            return Optional.empty();
        }
    }

    private void awaitExit(ProcessHandle postmaster, Set<ProcessHandle> backends) {
        await(this + " gone").atMost(STOP_TIMEOUT)
            .pollDelay(Duration.ZERO)
            .pollInterval(Duration.ofMillis(20))
            .pollInSameThread()
            .until(() -> !postmaster.isAlive() && backends.stream().noneMatch(ProcessHandle::isAlive));
    }

    private Path dataDir() {
        return this.dir.resolve("data");
    }

    /** Last-resort cleanup from the shutdown hook: no locks, no waiting. */
    private void reap() {
        ProcessHandle current = this.postmaster;
        if (current != null) {
            current.descendants().forEach(ProcessHandle::destroyForcibly);
            current.destroyForcibly();
        }
        deleteRecursively(this.dir);
    }

    private static boolean isRoot() {
        return new UnixSystem().getUid() == 0;
    }

    private static List<String> asServerUser(List<String> command) {
        if (!isRoot()) {
            return command;
        }
        List<String> wrapped = new ArrayList<>(List.of("runuser", "-u", SYSTEM_USER, "--"));
        wrapped.addAll(command);
        return wrapped;
    }

    /** Under root, gives {@code path} to the server's user, who must write it. */
    private static void handOver(Path path) {
        if (!isRoot()) {
            return;
        }
        try {
            UserPrincipalLookupService users = path.getFileSystem().getUserPrincipalLookupService();
            Files.setOwner(path, users.lookupPrincipalByName(SYSTEM_USER));
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot give " + path + " to the " + SYSTEM_USER
                    + " user (PostgreSQL refuses to run as root)", ex);
        }
    }

    private static void run(List<String> command, Path log) {
        List<String> wrapped = asServerUser(command);
        try {
            Process process = new ProcessBuilder(wrapped).redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
            process.getOutputStream().close();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(wrapped + " did not finish within 60 s");
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException(wrapped + " exited with " + process.exitValue() + ":\n" + tail(log));
            }
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot run " + wrapped, ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while running " + wrapped, ex);
        }
    }

    private static void signal(ProcessHandle process, String name) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
            if (kill.waitFor() != 0 && process.isAlive()) {
                throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed");
            }
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while signalling PostgreSQL " + process.pid(), ex);
        }
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        }
        catch (IOException ex) {
            return "(log unreadable: " + ex + ")";
        }
    }

    private static Path createTempDir() {
        try {
            Path dir = Files.createTempDirectory("postgres-");
            handOver(dir);
            return dir;
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private static void deleteRecursively(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
        }
        catch (IOException | UncheckedIOException ex) {
            // Best effort: the directory is under java.io.tmpdir anyway.
        }
    }

}
