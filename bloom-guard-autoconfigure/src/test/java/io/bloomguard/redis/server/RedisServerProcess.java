package io.bloomguard.redis.server;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

/**
 * One real {@code redis-server} child process on a loopback port, without persistence, in its own temporary
 * directory. Tests use it to see what users see when Redis is slow, dies or comes back: {@link #kill()} is a
 * SIGKILL, {@link #restart()} brings an empty server back on the same port, so clients configured with
 * {@link #redisUri()} reconnect by themselves.
 *
 * <p>Usage: {@code try (RedisServerProcess redis = RedisServerProcess.start()) { ... redis.redisUri() ... }}.
 *
 * <p>A JVM shutdown hook kills servers that a test forgot to close; only a SIGKILL of the JVM itself can
 * leave one behind.
 */
public final class RedisServerProcess implements AutoCloseable {

    private static final String HOST = "127.0.0.1";

    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(10);

    /** How long {@link #restart()} keeps retrying while the old socket still holds the port. */
    private static final Duration REBIND_TIMEOUT = Duration.ofSeconds(5);

    private static final int START_ATTEMPTS = 3;

    private static final int CLUSTER_BUS_PORT_OFFSET = 10_000;

    private static final Set<RedisServerProcess> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(RedisServerProcess::reap),
                "redis-server-reaper"));
    }

    private final int port;

    private final Path dir;

    private final Path log;

    private final List<String> command;

    /** Volatile so the shutdown hook can kill it without waiting for a lock a test thread may hold. */
    private volatile @Nullable Process process;

    private boolean closed;

    private RedisServerProcess(int port, Path dir, List<String> extraArgs) {
        this.port = port;
        this.dir = dir;
        this.log = dir.resolve("redis.log");
        List<String> command = new ArrayList<>(List.of(RedisServerBinary.path().toString(), "--port",
                String.valueOf(port), "--bind", HOST, "--save", "", "--appendonly", "no", "--protected-mode", "no",
                "--dir", dir.toString(), "--daemonize", "no"));
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
        List<String> args = List.of(extraArgs);
        boolean clusterNode = isClusterNode(args);
        @Nullable IllegalStateException failure = null;
        for (int attempt = 0; attempt < START_ATTEMPTS; attempt++) {
            RedisServerProcess server = new RedisServerProcess(freePort(clusterNode), createTempDir(), args);
            LIVE.add(server);
            try {
                server.launchAndAwaitPong(Duration.ZERO);
                return server;
            }
            catch (PortInUseException ex) {
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
        launchAndAwaitPong(REBIND_TIMEOUT);
    }

    /**
     * Sends one command on a fresh connection and returns the reply as text: a simple string, bulk string or
     * integer as is, an array as its elements (flattened) joined by newlines. Unlike a client library it
     * never reconnects or retries, so it is handy for {@code INFO commandstats}, {@code FLUSHALL},
     * {@code CLUSTER ...} or {@code DEBUG SLEEP}.
     * @param args the command and its arguments, such as {@code "CONFIG", "SET", "maxmemory", "10mb"}
     * @return the reply, or {@code null} for a nil reply
     * @throws IllegalStateException if Redis answers with an error
     * @throws UncheckedIOException if the server cannot be reached
     */
    public @Nullable String command(String... args) {
        return RespConnection.command(HOST, this.port, args);
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
     * @param rebindTimeout how long to keep relaunching while the port is still in use; zero to fail at once
     * with a {@link PortInUseException}
     */
    private synchronized void launchAndAwaitPong(Duration rebindTimeout) {
        long rebindDeadline = System.nanoTime() + rebindTimeout.toNanos();
        while (true) {
            long logOffset = logSize();
            Process started = launch();
            long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
            while (System.nanoTime() < deadline) {
                if (!started.isAlive()) {
                    String output = logSince(logOffset);
                    this.process = null;
                    if (!output.contains("Address already in use")) {
                        throw new IllegalStateException(
                                describeFailure("exited with " + started.exitValue(), output));
                    }
                    if (System.nanoTime() >= rebindDeadline) {
                        throw new PortInUseException(describeFailure("could not bind its port", output));
                    }
                    break;
                }
                if (answersPong(started)) {
                    return;
                }
                sleep(Duration.ofMillis(20));
            }
            if (this.process != null) {
                String output = logSince(logOffset);
                kill();
                throw new IllegalStateException(describeFailure("did not answer PING within "
                        + STARTUP_TIMEOUT.toSeconds() + " s", output));
            }
            sleep(Duration.ofMillis(100));
        }
    }

    private Process launch() {
        try {
            Process started = new ProcessBuilder(this.command).directory(this.dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(this.log.toFile()))
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
            if (!"PONG".equals(RespConnection.command(HOST, this.port, Duration.ofMillis(500), "PING"))) {
                return false;
            }
            // A PONG may come from a stranger that took the port first; ours is then about to exit.
            String info = RespConnection.command(HOST, this.port, Duration.ofMillis(500), "INFO", "server");
            return info != null && info.contains("process_id:" + started.pid() + "\r\n");
        }
        catch (RuntimeException ex) {
            // Not listening yet, or still loading.
            return false;
        }
    }

    private String describeFailure(String what, String output) {
        String[] lines = output.split("\n");
        String tail = String.join("\n", Arrays.copyOfRange(lines, Math.max(0, lines.length - 20), lines.length));
        return "redis-server on port " + this.port + " " + what + "; command: " + this.command + "; log tail:\n"
                + tail;
    }

    private long logSize() {
        try {
            return Files.exists(this.log) ? Files.size(this.log) : 0;
        }
        catch (IOException ex) {
            return 0;
        }
    }

    private String logSince(long offset) {
        try (RandomAccessFile file = new RandomAccessFile(this.log.toFile(), "r")) {
            file.seek(Math.min(offset, file.length()));
            byte[] bytes = new byte[(int) Math.min(file.length() - file.getFilePointer(), 1 << 20)];
            file.readFully(bytes);
            return new String(bytes, StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            return "(log unreadable: " + ex + ")";
        }
    }

    private static boolean isClusterNode(List<String> args) {
        int index = args.indexOf("--cluster-enabled");
        return index >= 0 && index + 1 < args.size() && args.get(index + 1).equalsIgnoreCase("yes");
    }

    /**
     * A port that is free now. A cluster node also binds port + 10000 for its bus (6.2 cannot move the bus
     * with {@code cluster-port}), so that one must exist and be free too.
     */
    private static int freePort(boolean withClusterBus) {
        for (int attempt = 0; attempt < 100; attempt++) {
            int candidate = bindAndRelease(0);
            if (!withClusterBus) {
                return candidate;
            }
            int busPort = candidate + CLUSTER_BUS_PORT_OFFSET;
            if (busPort <= 65_535 && bindAndRelease(busPort) == busPort) {
                return candidate;
            }
        }
        throw new IllegalStateException("Found no free loopback port pair for a cluster node");
    }

    /** @return the bound port, or -1 if {@code port} is taken */
    private static int bindAndRelease(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return socket.getLocalPort();
        }
        catch (IOException ex) {
            if (port == 0) {
                throw new UncheckedIOException("No free loopback port", ex);
            }
            return -1;
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

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for redis-server", ex);
        }
    }

    private static final class PortInUseException extends IllegalStateException {

        PortInUseException(String message) {
            super(message);
        }

    }

    /** Just enough RESP2 to send one command and read one reply. */
    static final class RespConnection {

        /** Long enough for {@code DEBUG SLEEP} and a big {@code FLUSHALL}. */
        private static final Duration READ_TIMEOUT = Duration.ofSeconds(60);

        private RespConnection() {
        }

        static @Nullable String command(String host, int port, String... args) {
            return command(host, port, READ_TIMEOUT, args);
        }

        static @Nullable String command(String host, int port, Duration readTimeout, String... args) {
            if (args.length == 0) {
                throw new IllegalArgumentException("No command given");
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(host, port), 1000);
                socket.setSoTimeout((int) readTimeout.toMillis());
                socket.setTcpNoDelay(true);
                OutputStream out = socket.getOutputStream();
                out.write(encode(args));
                out.flush();
                InputStream in = new BufferedInputStream(socket.getInputStream());
                Object reply = read(in);
                if (reply instanceof RedisError error) {
                    throw new IllegalStateException(
                            "Redis on port " + port + " answered " + String.join(" ", args) + " with " + error.message());
                }
                return (reply != null) ? text(reply) : null;
            }
            catch (IOException ex) {
                throw new UncheckedIOException("Cannot send " + args[0] + " to Redis on " + host + ":" + port, ex);
            }
        }

        private static byte[] encode(String... args) {
            ByteArrayOutputStream buffer = new ByteArrayOutputStream();
            buffer.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            for (String arg : args) {
                byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
                buffer.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                buffer.writeBytes(bytes);
                buffer.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            return buffer.toByteArray();
        }

        /** @return a String, Long, RedisError, List of those, or null for nil */
        private static @Nullable Object read(InputStream in) throws IOException {
            int type = in.read();
            if (type == -1) {
                throw new IOException("Connection closed before a reply");
            }
            String line = readLine(in);
            switch (type) {
                case '+':
                    return line;
                case '-':
                    return new RedisError(line);
                case ':':
                    return Long.parseLong(line);
                case '$': {
                    int length = Integer.parseInt(line);
                    if (length < 0) {
                        return null;
                    }
                    byte[] bytes = in.readNBytes(length);
                    if (bytes.length < length || in.read() != '\r' || in.read() != '\n') {
                        throw new IOException("Truncated bulk string");
                    }
                    return new String(bytes, StandardCharsets.UTF_8);
                }
                case '*': {
                    int count = Integer.parseInt(line);
                    if (count < 0) {
                        return null;
                    }
                    List<@Nullable Object> elements = new ArrayList<>(count);
                    for (int i = 0; i < count; i++) {
                        elements.add(read(in));
                    }
                    return elements;
                }
                default:
                    throw new IOException("Unexpected RESP type '" + (char) type + "'");
            }
        }

        private static String readLine(InputStream in) throws IOException {
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            int previous = -1;
            while (true) {
                int current = in.read();
                if (current == -1) {
                    throw new IOException("Connection closed in the middle of a reply");
                }
                if (previous == '\r' && current == '\n') {
                    byte[] bytes = line.toByteArray();
                    return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
                }
                line.write(current);
                previous = current;
            }
        }

        private static String text(@Nullable Object reply) {
            if (reply == null) {
                return "";
            }
            if (reply instanceof List<?> elements) {
                List<String> lines = new ArrayList<>(elements.size());
                for (Object element : elements) {
                    lines.add(text(element));
                }
                return String.join("\n", lines);
            }
            if (reply instanceof RedisError error) {
                // Inside an array, such as an EXEC reply: keep it visible instead of failing the whole call.
                return "-" + error.message();
            }
            return reply.toString();
        }

        private record RedisError(String message) {
        }

    }

}
