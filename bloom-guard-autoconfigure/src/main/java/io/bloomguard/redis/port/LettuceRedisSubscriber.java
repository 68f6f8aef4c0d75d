package io.bloomguard.redis.port;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * {@link RedisSubscriber} over a Lettuce pub/sub connection of its own, opened from the application's client. Lettuce
 * hands messages and replies to the listener and to the futures on its event loop, in the order they arrived, which is
 * what makes {@link #ping()} a barrier. A drop is reported through the client's connection listener, before any
 * reconnect.
 */
final class LettuceRedisSubscriber implements RedisSubscriber {

    private final RedisClient client;
    private final StatefulRedisPubSubConnection<byte[], byte[]> connection;
    private final RedisConnectionStateListener drops;

    LettuceRedisSubscriber(RedisClient client, Listener listener) {
        this.client = client;
        this.connection = client.connectPubSub(ByteArrayCodec.INSTANCE);
        this.drops = new RedisConnectionStateListener() {
            @Override
            public void onRedisDisconnected(RedisChannelHandler<?, ?> dropped) {
                if (dropped == connection) {
                    listener.disconnected();
                }
            }
        };
        client.addListener(drops);
        connection.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(byte[] channel, byte[] payload) {
                listener.message(new String(channel, StandardCharsets.UTF_8), payload);
            }
        });
    }

    @Override
    public CompletableFuture<Void> subscribe(List<String> channels) {
        byte[][] names = channels.stream().map(name -> name.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
        return connection.async().subscribe(names).toCompletableFuture().thenApply(done -> null);
    }

    @Override
    public String publishCommand() {
        return "PUBLISH";
    }

    @Override
    public String connectionOf(String channel) {
        return "";
    }

    @Override
    public CompletableFuture<Void> ping(String channel) {
        return connection.async().ping().toCompletableFuture().thenApply(pong -> null);
    }

    @Override
    public void close() {
        client.removeListener(drops);
        connection.close();
    }
}
