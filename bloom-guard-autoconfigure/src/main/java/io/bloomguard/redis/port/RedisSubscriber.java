package io.bloomguard.redis.port;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A subscriber connection of its own, for the ordered near copy's reads: Redis hands a
 * subscriber the messages of its channels in the order it processed the commands that published them, and the reply
 * to a {@code PING} sent on the same connection after every message published before Redis processed the
 * {@code PING}.
 *
 * <p>Usage: {@code RedisSubscriber subscriber = port.subscriber(listener); subscriber.subscribe(channels).join();
 * subscriber.ping(channel).join(); // every message published before now has reached the listener}
 *
 * @since 0.1.0
 */
public interface RedisSubscriber extends AutoCloseable {

    /** Told of what arrives on the connection, in order, on the client's own thread. */
    interface Listener {

        void message(String channel, byte[] payload);

        /** The connection dropped: messages may have been lost. */
        void disconnected();
    }

    /**
     * {@code SUBSCRIBE} ({@code SSUBSCRIBE} on a cluster, on the node that serves each channel's slot); completes once
     * Redis has confirmed every channel.
     */
    CompletableFuture<Void> subscribe(List<String> channels);

    /** The command whose messages {@link #subscribe} receives: {@code PUBLISH}, or {@code SPUBLISH} on a cluster. */
    String publishCommand();

    /**
     * Which connection carries {@code channel}: barriers of the same connection are shared ({@code ""} for the one
     * connection to a server, the node's id on a cluster).
     */
    String connectionOf(String channel);

    /**
     * {@code PING} on the connection that carries {@code channel}; completes once its reply arrived, after every
     * message of that connection's channels that Redis processed before it was handed to the listener.
     */
    CompletableFuture<Void> ping(String channel);

    @Override
    void close();
}
