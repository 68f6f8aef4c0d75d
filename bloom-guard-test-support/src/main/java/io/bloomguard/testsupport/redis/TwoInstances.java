package io.bloomguard.testsupport.redis;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.IntFunction;

/**
 * Two application instances on one Redis, one of them reached through a {@link FreezableTcpProxy}: what a test of a
 * partition or an outage between instances needs. Handed to a test method by {@link RedisServerExtension} as a
 * parameter, and closed after it (the instances first, in the reverse order of their start, then the proxy).
 *
 * <p>Usage: <pre>{@code
 * @Test
 * void aPartitionedInstance(TwoInstances two) {
 *     TwoInstances.Pair<TestRedisBackend> pair = two.start(port -> TestRedisBackend.on(port, SETTINGS));
 *     two.proxy().freeze(); // pair.behindProxy() no longer reaches Redis; pair.direct() still does
 * }}</pre>
 */
public final class TwoInstances implements AutoCloseable {

    private final RedisServerProcess server;
    private final Deque<AutoCloseable> started = new ArrayDeque<>();
    private FreezableTcpProxy proxy;

    TwoInstances(RedisServerProcess server) {
        this.server = server;
    }

    /**
     * Starts the two instances, each made by {@code instanceOnPort} for the port it is to connect to: the first to the
     * proxy's, the second to the server's. May be called again for another pair behind the same proxy.
     */
    public <T extends AutoCloseable> Pair<T> start(IntFunction<T> instanceOnPort) {
        T behindProxy = started(instanceOnPort.apply(proxy().port()));
        T direct = started(instanceOnPort.apply(server.port()));
        return new Pair<>(behindProxy, direct);
    }

    /** One more instance, reached through the proxy: closed with the others. */
    public <T extends AutoCloseable> T behindProxy(IntFunction<T> instanceOnPort) {
        return started(instanceOnPort.apply(proxy().port()));
    }

    /** The proxy in front of the first instance of each pair, started when first asked for. */
    public synchronized FreezableTcpProxy proxy() {
        if (proxy == null) {
            proxy = FreezableTcpProxy.start(server.port());
        }
        return proxy;
    }

    /** The server both instances use. */
    public RedisServerProcess server() {
        return server;
    }

    private synchronized <T extends AutoCloseable> T started(T instance) {
        started.push(instance);
        return instance;
    }

    @Override
    public synchronized void close() throws Exception {
        Exception first = null;
        while (!started.isEmpty()) {
            try {
                started.pop().close();
            }
            catch (Exception ex) {
                first = (first != null) ? first : ex;
            }
        }
        if (proxy != null) {
            proxy.close();
        }
        if (first != null) {
            throw first;
        }
    }

    /**
     * Two instances of one application.
     *
     * @param behindProxy the one whose connections go through the proxy, which a test freezes to cut it off
     * @param direct      the one connected to the server itself
     */
    public record Pair<T>(T behindProxy, T direct) {
    }
}
