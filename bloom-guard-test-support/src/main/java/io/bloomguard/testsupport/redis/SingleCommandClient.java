package io.bloomguard.testsupport.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolKeyword;
import io.lettuce.core.protocol.ProtocolVersion;
import org.jspecify.annotations.Nullable;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Sends one command on a fresh Lettuce connection and returns the reply as text. Unlike an application's client it
 * never reconnects or retries, and on connecting it sends nothing of its own (no {@code HELLO}, {@code PING} or
 * {@code CLIENT SETINFO}), so {@code MONITOR} and {@code INFO commandstats} see only the command.
 */
final class SingleCommandClient {

    /** One client for the JVM; each command opens and closes its own connection on it. */
    private static final RedisClient CLIENT = createClient();

    private SingleCommandClient() {
    }

    /**
     * @param args the command and its arguments, such as {@code "CONFIG", "SET", "maxmemory", "10mb"}
     * @return a simple string, bulk string or integer as is, an array as its elements (flattened) joined by
     * newlines, or {@code null} for a nil reply
     * @throws IllegalStateException if Redis answers with an error
     * @throws io.lettuce.core.RedisException if the server cannot be reached or does not answer in time
     */
    static @Nullable String send(String host, int port, Duration timeout, String... args) {
        if (args.length == 0) {
            throw new IllegalArgumentException("No command given");
        }
        RedisURI uri = RedisURI.builder().withHost(host).withPort(port).withTimeout(timeout).build();
        // Empty, so that connecting sends no CLIENT SETINFO.
        uri.setLibraryName("");
        uri.setLibraryVersion("");
        CommandArgs<String, String> commandArgs = new CommandArgs<>(StringCodec.UTF8)
            .addValues(Arrays.asList(args).subList(1, args.length));
        try (StatefulRedisConnection<String, String> connection = CLIENT.connect(StringCodec.UTF8, uri)) {
            // The elements of an array reply, or a list of the one reply.
            List<Object> reply = connection.sync()
                .dispatch(new Keyword(args[0]), new NestedMultiOutput<>(StringCodec.UTF8), commandArgs);
            return (reply.size() == 1 && reply.get(0) == null) ? null : text(reply);
        }
        catch (RedisCommandExecutionException ex) {
            throw new IllegalStateException(
                    "Redis on port " + port + " answered " + String.join(" ", args) + " with " + ex.getMessage(), ex);
        }
    }

    private static String text(Object reply) {
        if (reply instanceof List<?> elements) {
            return elements.stream()
                .map((element) -> (element != null) ? text(element) : "")
                .collect(Collectors.joining("\n"));
        }
        return reply.toString();
    }

    private static RedisClient createClient() {
        RedisClient client = RedisClient.create();
        client.setOptions(ClientOptions.builder()
            .autoReconnect(false)
            .pingBeforeActivateConnection(false)
            .protocolVersion(ProtocolVersion.RESP2)
            .socketOptions(SocketOptions.builder().connectTimeout(Duration.ofSeconds(1)).build())
            .build());
        return client;
    }

    /** Any command name, including ones Lettuce does not know, such as {@code DEBUG} or a misspelt one. */
    private record Keyword(String name) implements ProtocolKeyword {

        @Override
        public byte[] getBytes() {
            return this.name.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String toString() {
            return this.name;
        }

    }

}
