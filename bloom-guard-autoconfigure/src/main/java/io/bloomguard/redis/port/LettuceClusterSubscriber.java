package io.bloomguard.redis.port;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.RedisClusterPubSubAdapter;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.ByteArrayCodec;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@link RedisSubscriber} on a Redis Cluster: each channel is a shard channel, subscribed ({@code SSUBSCRIBE}) on the
 * connection to the node that serves its slot, where the scripts of that slot publish ({@code SPUBLISH}); a barrier is
 * a {@code PING} on that node's connection. A channel whose slot moves is unsubscribed by the node: that, and a drop
 * of any of these connections, counts as a drop (messages may have been lost).
 */
final class LettuceClusterSubscriber implements RedisSubscriber {

    private final RedisClusterClient client;
    private final StatefulRedisClusterPubSubConnection<byte[], byte[]> connection;
    private final RedisConnectionStateListener drops;
    /** Node id of each subscribed channel. */
    private final Map<String, String> nodes = new ConcurrentHashMap<>();
    /** The node connections channels were subscribed on: a drop of one of them is a drop. */
    private final Set<Object> ours = ConcurrentHashMap.newKeySet();

    LettuceClusterSubscriber(RedisClusterClient client, Listener listener) {
        this.client = client;
        this.connection = client.connectPubSub(ByteArrayCodec.INSTANCE);
        this.drops = new RedisConnectionStateListener() {
            @Override
            public void onRedisDisconnected(RedisChannelHandler<?, ?> dropped) {
                if (dropped == connection || ours.contains(dropped)) {
                    listener.disconnected();
                }
            }
        };
        client.addListener(drops);
        connection.setNodeMessagePropagation(true);
        connection.addListener(new RedisClusterPubSubAdapter<>() {
            @Override
            public void smessage(RedisClusterNode node, byte[] channel, byte[] payload) {
                listener.message(new String(channel, StandardCharsets.UTF_8), payload);
            }

            @Override
            public void sunsubscribed(RedisClusterNode node, byte[] channel, long count) {
                listener.disconnected(); // the slot moved: this node no longer hands its messages over
            }
        });
    }

    /** One {@code SSUBSCRIBE} per channel: a node refuses one whose channels hash to different slots. */
    @Override
    public CompletableFuture<Void> subscribe(List<String> channels) {
        List<CompletableFuture<Void>> confirmed = new ArrayList<>();
        for (String channel : channels) {
            RedisClusterNode node = connection.getPartitions().getPartitionBySlot(SlotHash.getSlot(channel));
            if (node == null) {
                return CompletableFuture.failedFuture(new IllegalStateException("no node serves the slot of "
                        + channel));
            }
            nodes.put(channel, node.getNodeId());
            byte[] name = channel.getBytes(StandardCharsets.UTF_8);
            confirmed.add(connection.getConnectionAsync(node.getNodeId()).thenCompose(nodeConnection -> {
                ours.add(nodeConnection);
                return nodeConnection.async().ssubscribe(name).toCompletableFuture();
            }));
        }
        return CompletableFuture.allOf(confirmed.toArray(CompletableFuture[]::new));
    }

    @Override
    public String publishCommand() {
        return "SPUBLISH";
    }

    @Override
    public String connectionOf(String channel) {
        return nodes.getOrDefault(channel, "");
    }

    @Override
    public CompletableFuture<Void> ping(String channel) {
        String node = nodes.get(channel);
        if (node == null) {
            return CompletableFuture.failedFuture(new IllegalStateException(channel + " is not subscribed"));
        }
        return connection.getConnectionAsync(node)
                .thenCompose(nodeConnection -> nodeConnection.async().ping().toCompletableFuture())
                .thenApply(pong -> null);
    }

    @Override
    public void close() {
        client.removeListener(drops);
        connection.close();
    }
}
