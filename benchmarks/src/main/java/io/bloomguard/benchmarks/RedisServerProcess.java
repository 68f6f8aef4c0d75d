package io.bloomguard.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A throw-away {@code redis-server} for the Redis benchmarks: started on a free loopback port with no
 * persistence ({@code --save "" --appendonly no}) in a temporary directory, stopped (and the directory
 * deleted) by {@link #close()} or, failing that, when the JVM exits.
 *
 * <p>The binary is {@code /usr/bin/redis-server} unless {@code -Dredis.server=PATH} says otherwise.
 */
final class RedisServerProcess implements AutoCloseable {

    static final String BINARY = System.getProperty("redis.server", "/usr/bin/redis-server");

    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    private final Process process;
    private final int port;
    private final Path dir;
    private final Thread hook;

    private RedisServerProcess(Process process, int port, Path dir) {
        this.process = process;
        this.port = port;
        this.dir = dir;
        this.hook = new Thread(process::destroyForcibly, "redis-server-stop");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** Starts a server and waits until it answers {@code PING}. */
    static RedisServerProcess start() {
        IllegalStateException failure = null;
        for (int attempt = 0; attempt < 3; attempt++) { // another process may take the free port first
            try {
                return tryStart(freePort());
            }
            catch (IllegalStateException ex) {
                failure = ex;
            }
        }
        throw failure;
    }

    int port() {
        return port;
    }

    String host() {
        return LOOPBACK.getHostAddress();
    }

    @Override
    public void close() {
        process.destroy(); // SIGTERM: redis-server shuts down (nothing to save)
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        }
        catch (IllegalStateException ignored) {
            // already shutting down
        }
        deleteDir();
    }

    private static RedisServerProcess tryStart(int port) {
        Path dir;
        Process process;
        try {
            dir = Files.createTempDirectory("bloom-guard-bench-redis-");
            process = new ProcessBuilder(List.of(BINARY, "--port", Integer.toString(port),
                    "--bind", LOOPBACK.getHostAddress(), "--save", "", "--appendonly", "no", "--daemonize", "no",
                    "--dir", dir.toString(), "--logfile", dir.resolve("redis.log").toString()))
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("redis.out").toFile())
                    .start();
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not start " + BINARY, ex);
        }
        RedisServerProcess server = new RedisServerProcess(process, port, dir);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                server.close();
                throw new IllegalStateException(BINARY + " exited with " + process.exitValue() + " on port " + port);
            }
            if (answersPing(port)) {
                return server;
            }
            sleep(20);
        }
        server.close();
        throw new IllegalStateException(BINARY + " did not answer on port " + port);
    }

    private static boolean answersPing(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(LOOPBACK, port), 200);
            socket.setSoTimeout(500);
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            byte[] reply = in.readNBytes(7);
            return "+PONG\r\n".equals(new String(reply, StandardCharsets.US_ASCII));
        }
        catch (IOException ex) {
            return false;
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, LOOPBACK)) {
            return socket.getLocalPort();
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private void deleteDir() {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
        catch (IOException ignored) {
            // a temporary directory left behind
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", ex);
        }
    }
}
