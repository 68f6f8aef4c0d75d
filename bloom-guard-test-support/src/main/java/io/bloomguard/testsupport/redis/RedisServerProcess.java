package io.bloomguard.testsupport.redis;

import org.awaitility.core.ConditionTimeoutException;
import org.jspecify.annotations.Nullable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

import static org.awaitility.Awaitility.await;

/**
 * One real {@code redis-server} child process on a loopback port, without persistence, in its own temporary
 * directory. Tests use it to see what users see when Redis is slow, dies or comes back: {@link #kill()} is a
 * SIGKILL, {@link #restart()} brings an empty server back on the same port, so clients configured with
 * {@link #redisUri()} reconnect by themselves, and {@link #restartFrom} one loaded from an RDB file
 * {@link #saveSnapshot()} kept earlier.
 *
 * <p>Usage: {@code try (RedisServerProcess redis = RedisServerProcess.start()) { ... redis.redisUri() ... }}, or
 * one per test class through {@link RedisServerExtension}.
 *
 * <p>A JVM shutdown hook kills servers that a test forgot to close; only a SIGKILL of the JVM itself can
 * leave one behind.
 *
 * <p>Longer than most classes: start, kill, pause, restart and close all act on the one process it holds, each
 * with its own care (a stranger answering on the port, a port still held after a kill, a lock the shutdown hook
 * must not wait for).
 */
public final class RedisServerProcess implements AutoCloseable {

    private static final String HOST = "127.0.0.1";

    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(10);

    /** How long {@link #restart()} waits for the killed server's sockets to let go of the port. */
    private static final Duration REBIND_TIMEOUT = Duration.ofSeconds(5);

    /** Long enough for {@code DEBUG SLEEP} and a big {@code FLUSHALL}. */
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(60);

    private static final Duration PING_TIMEOUT = Duration.ofMillis(500);

    private static final int START_ATTEMPTS = 3;

    /** The file {@code SAVE} writes and a starting server loads (Redis's default {@code dbfilename}). */
    private static final String DUMP_FILE = "dump.rdb";

    private static final Set<RedisServerProcess> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(RedisServerProcess::reap),
                "redis-server-reaper"));
    }

    private final int port;

    private final boolean clusterNode;

    private final Path dir;

    private final ServerLog log;

    private final List<String> command;

    /** Volatile so the shutdown hook can kill it without waiting for a lock a test thread may hold. */
    private volatile @Nullable Process process;

    private boolean closed;

    private RedisServerProcess(int port, boolean clusterNode, Path dir, @Nullable String sentinelConfig,
            List<String> extraArgs) {
        this.port = port;
        this.clusterNode = clusterNode;
        this.dir = dir;
        this.log = new ServerLog(dir.resolve("redis.log"));
        List<String> command = new ArrayList<>();
        if (sentinelConfig == null) {
            command.add(RedisServerBinary.path().toString());
        }
        else {
            // A Sentinel needs a file of its own, which it rewrites as it learns the topology.
            command.addAll(List.of(RedisServerBinary.sentinelPath().toString(),
                    writeFile(dir.resolve("sentinel.conf"), sentinelConfig).toString(), "--sentinel"));
        }
        command.addAll(List.of("--port", String.valueOf(port), "--bind", HOST, "--save", "", "--appendonly", "no",
                "--protected-mode", "no", "--dir", dir.toString(), "--daemonize", "no"));
        if (RedisServerBinary.majorVersion() >= 7) {
            // Redis 7 refuses DEBUG (used for DEBUG SLEEP) unless enabled; 6.2 does not know the option.
            command.addAll(List.of("--enable-debug-command", "local"));
        }
        command.addAll(extraArgs);
        this.command = List.copyOf(command);
    }

    /**
     * Starts a server on a free loopback port and waits until it answers PING.
     * @param extraArgs more {@code redis-server} options, such as {@code "--maxmemory", "10mb"}
     * @return the running server
     */
    public static RedisServerProcess start(String... extraArgs) {
        return start(null, List.of(extraArgs));
    }

    /**
     * Starts a server as {@link #start} does, with the {@link RedisBloomModule} loaded ({@code BF.*}, {@code CF.*}).
     * @param extraArgs more {@code redis-server} options
     * @return the running server; {@link #restart()} loads the module again
     * @throws IllegalStateException if no module is configured (tests call {@link RedisBloomModule#assumeAvailable()}
     * first, to be skipped instead)
     */
    public static RedisServerProcess startWithRedisBloom(String... extraArgs) {
        List<String> args = new ArrayList<>(RedisBloomModule.loadModuleArguments());
        args.addAll(List.of(extraArgs));
        return start(null, args);
    }

    /**
     * Starts {@code redis-server} in Sentinel mode ({@code redis-server <file> --sentinel}) on a free loopback port.
     * @param config the Sentinel's configuration file, such as {@code sentinel monitor ...} lines
     * @return the running Sentinel; {@link #command} talks to it
     */
    static RedisServerProcess startSentinel(String config) {
        return start(config, List.of());
    }

    private static RedisServerProcess start(@Nullable String sentinelConfig, List<String> args) {
        boolean clusterNode = isClusterNode(args);
        @Nullable PortTakenException failure = null;
        for (int attempt = 0; attempt < START_ATTEMPTS; attempt++) {
            RedisServerProcess server = new RedisServerProcess(LoopbackPorts.free(clusterNode), clusterNode,
                    createTempDir(), sentinelConfig, args);
            LIVE.add(server);
            try {
                server.launchAndAwaitPong();
                return server;
            }
            catch (PortTakenException ex) {
                // Someone took the port between our probe and the server's bind: try another one.
                server.close();
                failure = ex;
            }
            catch (RuntimeException ex) {
                server.close();
                throw ex;
            }
        }
        throw Objects.requireNonNull(failure);
    }

    /** Port the server listens on; the same after {@link #restart()}. */
    public int port() {
        return this.port;
    }

    /** Host the server listens on, always {@code 127.0.0.1}. */
    public String host() {
        return HOST;
    }

    /** URI for clients, such as {@code redis://127.0.0.1:6380}. */
    public String redisUri() {
        return "redis://" + HOST + ":" + this.port;
    }

    /** Directory holding the log and, for cluster nodes, {@code nodes.conf}. */
    public Path dir() {
        return this.dir;
    }

    /** Whether the process is alive (it may still be starting). */
    public boolean isRunning() {
        Process current = this.process;
        return current != null && current.isAlive();
    }

    /**
     * Kills the server with SIGKILL, as a crash or OOM kill would, and waits until it is gone. Clients see
     * their connections reset. The port is remembered for {@link #restart()}, but nothing holds it meanwhile.
     */
    public synchronized void kill() {
        Process current = this.process;
        this.process = null;
        if (current == null) {
            return;
        }
        current.destroyForcibly();
        try {
            current.waitFor();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while killing redis-server on port " + this.port, ex);
        }
    }

    /**
     * Stops the server with SIGSTOP, as a long GC-like stall, a swapped-out host or a debugger would: connections stay
     * open and accept writes, but nothing is answered until {@link #resume()}. (A killed server resets connections
     * instead; a frozen one is what client timeouts are for.) {@link #kill()} and {@link #close()} still work.
     */
    public synchronized void pause() {
        signal("STOP");
    }

    /** Lets a {@link #pause() paused} server run again (SIGCONT): it answers what it was sent meanwhile. */
    public synchronized void resume() {
        signal("CONT");
    }

    private void signal(String name) {
        Process current = this.process;
        if (current == null || !current.isAlive()) {
            throw new IllegalStateException("redis-server on port " + this.port + " is not running");
        }
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(current.pid())).inheritIO().start();
            if (kill.waitFor() != 0) {
                throw new IllegalStateException("kill -" + name + " " + current.pid() + " failed");
            }
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while signalling redis-server on port " + this.port, ex);
        }
    }

    /**
     * Kills the server if it is running and starts an empty one on the same port with the same options,
     * waiting until it answers PING.
     */
    public synchronized void restart() {
        if (this.closed) {
            throw new IllegalStateException("redis-server on port " + this.port + " is closed");
        }
        kill();
        await("port " + this.port + " free again").atMost(REBIND_TIMEOUT)
            .pollDelay(Duration.ZERO)
            .pollInterval(Duration.ofMillis(50))
            .pollInSameThread()
            .until(() -> LoopbackPorts.areFree(this.port, this.clusterNode));
        launchAndAwaitPong();
    }

    /**
     * Writes what the server holds to an RDB file now ({@code SAVE}) and keeps that file aside, for
     * {@link #restartFrom}: the server itself goes on without persistence, and {@link #restart()} still brings an
     * empty one back.
     * @return the saved file, in this server's directory (deleted with it)
     */
    public synchronized Path saveSnapshot() {
        command("SAVE");
        Path snapshot = this.dir.resolve("snapshot-" + System.nanoTime() + ".rdb");
        try {
            return Files.move(this.dir.resolve(DUMP_FILE), snapshot);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot keep the RDB file redis-server on port " + this.port + " saved", ex);
        }
    }

    /**
     * Kills the server (SIGKILL) and starts it again on the same port from {@code snapshot}, as a Redis restarted
     * from an RDB file older than its last writes comes back: with what the file holds, nothing written after it.
     * Waits until the file is loaded and the server answers PING.
     * @param snapshot a file {@link #saveSnapshot()} returned
     */
    public synchronized void restartFrom(Path snapshot) {
        Path dump = this.dir.resolve(DUMP_FILE);
        try {
            kill();
            Files.copy(snapshot, dump, StandardCopyOption.REPLACE_EXISTING);
            restart();
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot put " + snapshot + " in place of " + dump, ex);
        }
        finally {
            // Loaded by now (a loading server answers PING with an error); a later restart() starts empty again.
            dump.toFile().delete();
        }
    }

    /**
     * Sends one command on a fresh connection and returns the reply as text: a simple string, bulk string or
     * integer as is, an array as its elements (flattened) joined by newlines. Unlike a client library it
     * never reconnects or retries, so it is handy for {@code INFO commandstats}, {@code FLUSHALL},
     * {@code CLUSTER ...} or {@code DEBUG SLEEP}.
     * @param args the command and its arguments, such as {@code "CONFIG", "SET", "maxmemory", "10mb"}
     * @return the reply, or {@code null} for a nil reply
     * @throws IllegalStateException if Redis answers with an error
     * @throws io.lettuce.core.RedisException if the server cannot be reached
     */
    public @Nullable String command(String... args) {
        return SingleCommandClient.send(HOST, this.port, COMMAND_TIMEOUT, args);
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

    /** Last-resort cleanup from the shutdown hook: no locks, no waiting. */
    private void reap() {
        Process current = this.process;
        if (current != null) {
            current.destroyForcibly();
        }
        deleteRecursively(this.dir);
    }

    @Override
    public String toString() {
        return "redis-server " + RedisServerBinary.version() + " on " + HOST + ":" + this.port;
    }

    /**
     * Launches the server and waits until it answers PING as itself, not as a stranger on the port.
     * @throws PortTakenException if something else holds the port
     */
    private void launchAndAwaitPong() {
        long logOffset = this.log.size();
        Process started = launch();
        try {
            // In this thread: the caller may hold this object's lock, which kill() needs.
            await("redis-server on port " + this.port + " answering PING").atMost(STARTUP_TIMEOUT)
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(20))
                .pollInSameThread()
                .until(() -> !started.isAlive() || answersPong(started));
        }
        catch (ConditionTimeoutException ex) {
            String output = this.log.since(logOffset);
            kill();
            throw new IllegalStateException(describeFailure("did not answer PING within "
                    + STARTUP_TIMEOUT.toSeconds() + " s", output), ex);
        }
        if (!started.isAlive()) {
            this.process = null;
            String output = this.log.since(logOffset);
            if (output.contains("Address already in use")) {
                throw new PortTakenException(describeFailure("could not bind its port", output));
            }
            throw new IllegalStateException(describeFailure("exited with " + started.exitValue(), output));
        }
    }

    private Process launch() {
        try {
            Process started = new ProcessBuilder(this.command).directory(this.dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(this.log.file().toFile()))
                .start();
            started.getOutputStream().close();
            this.process = started;
            return started;
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot start " + this.command, ex);
        }
    }

    private boolean answersPong(Process started) {
        try {
            if (!"PONG".equals(SingleCommandClient.send(HOST, this.port, PING_TIMEOUT, "PING"))) {
                return false;
            }
            // A PONG may come from a stranger that took the port first; ours is then about to exit.
            String info = SingleCommandClient.send(HOST, this.port, PING_TIMEOUT, "INFO", "server");
            return info != null && info.contains("process_id:" + started.pid() + "\r\n");
        }
        catch (RuntimeException ex) {
            // Not listening yet, or still loading.
            return false;
        }
    }

    private String describeFailure(String what, String output) {
        return "redis-server on port " + this.port + " " + what + "; command: " + this.command + "; log tail:\n"
                + ServerLog.tail(output);
    }

    private static boolean isClusterNode(List<String> args) {
        int index = args.indexOf("--cluster-enabled");
        return index >= 0 && index + 1 < args.size() && args.get(index + 1).equalsIgnoreCase("yes");
    }

    private static Path writeFile(Path file, String text) {
        try {
            return Files.writeString(file, text);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private static Path createTempDir() {
        try {
            return Files.createTempDirectory("redis-server-");
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

    private static final class PortTakenException extends IllegalStateException {

        PortTakenException(String message) {
            super(message);
        }

    }

}
