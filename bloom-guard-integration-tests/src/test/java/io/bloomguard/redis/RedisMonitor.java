package io.bloomguard.redis;

import io.bloomguard.testsupport.redis.RedisServerProcess;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * A {@code MONITOR} connection that counts the commands clients send, leaving out those scripts run inside the
 * server: what {@code INFO commandstats} cannot tell apart, and what a round trip costs.
 *
 * <p>Usage: {@code try (RedisMonitor monitor = RedisMonitor.on(server)) { ...; monitor.commandsSinceLastCall(); }}
 */
final class RedisMonitor implements AutoCloseable {

    /** {@code 1700000000.123456 [0 lua] "GETRANGE" ...}: a command a script ran. */
    private static final Pattern FROM_SCRIPT = Pattern.compile("^\\+?[0-9.]+ \\[\\d+ lua\\] .*");

    private final RedisServerProcess server;
    private final Socket socket;
    private final BufferedReader replies;

    private RedisMonitor(RedisServerProcess server, Socket socket, BufferedReader replies) {
        this.server = server;
        this.socket = socket;
        this.replies = replies;
    }

    static RedisMonitor on(RedisServerProcess server) {
        Socket socket = new Socket();
        try {
            socket.connect(new InetSocketAddress(server.host(), server.port()), 1000);
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write("*1\r\n$7\r\nMONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            BufferedReader replies = new BufferedReader(
                    new InputStreamReader(socket.getInputStream(), StandardCharsets.ISO_8859_1));
            String ok = replies.readLine();
            if (!"+OK".equals(ok)) {
                throw new IllegalStateException("MONITOR answered " + ok);
            }
            return new RedisMonitor(server, socket, replies);
        }
        catch (IOException ex) {
            try {
                socket.close();
            }
            catch (IOException suppressed) {
                ex.addSuppressed(suppressed);
            }
            throw new UncheckedIOException("Cannot monitor " + server, ex);
        }
    }

    /**
     * Commands clients sent since the previous call (or since the monitor started), by lower-case name; a test's
     * own {@code INFO} and {@code CONFIG} calls are left out.
     */
    Map<String, Long> commandsSinceLastCall() {
        String marker = "monitor-marker-" + UUID.randomUUID();
        server.command("ECHO", marker);
        Map<String, Long> counts = new TreeMap<>();
        try {
            String line;
            while ((line = replies.readLine()) != null) {
                if (line.contains(marker)) {
                    return counts;
                }
                if (FROM_SCRIPT.matcher(line).matches()) {
                    continue;
                }
                int open = line.indexOf('"');
                int close = line.indexOf('"', open + 1);
                String command = line.substring(open + 1, close).toLowerCase(Locale.ROOT);
                if (!command.equals("info") && !command.equals("config")) {
                    counts.merge(command, 1L, Long::sum);
                }
            }
            throw new IllegalStateException("MONITOR connection closed");
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot read MONITOR output of " + server, ex);
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        }
        catch (IOException ex) {
            // Closing: nothing to release.
        }
    }
}
