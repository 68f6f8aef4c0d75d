package io.bloomguard.redis;

import io.bloomguard.redis.port.LuaScript;
import io.bloomguard.redis.port.RedisPort;
import io.bloomguard.redis.port.RedisSubscriber;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * A {@link RedisPort} whose subscriber connection hands over what arrives {@code lag} late, in the order it arrived:
 * messages and barrier replies alike, as a slow network or a busy client thread would. Commands are not delayed.
 */
final class LaggingRedisPort implements RedisPort {

    private final RedisPort delegate;
    private final long lagNanos;

    LaggingRedisPort(RedisPort delegate, Duration lag) {
        this.delegate = delegate;
        this.lagNanos = lag.toNanos();
    }

    @Override
    public @Nullable RedisSubscriber subscriber(RedisSubscriber.Listener listener) {
        Delivery delivery = new Delivery(lagNanos);
        RedisSubscriber real = delegate.subscriber(new RedisSubscriber.Listener() {
            @Override
            public void message(String channel, byte[] payload) {
                delivery.later(() -> listener.message(channel, payload));
            }

            @Override
            public void disconnected() {
                delivery.later(listener::disconnected);
            }
        });
        if (real == null) {
            delivery.stop();
            return null;
        }
        return new RedisSubscriber() {
            @Override
            public CompletableFuture<Void> subscribe(List<String> channels) {
                return real.subscribe(channels);
            }

            @Override
            public String publishCommand() {
                return real.publishCommand();
            }

            @Override
            public String connectionOf(String channel) {
                return real.connectionOf(channel);
            }

            @Override
            public CompletableFuture<Void> ping(String channel) {
                CompletableFuture<Void> late = new CompletableFuture<>();
                real.ping(channel).whenComplete((ok, failure) -> delivery.later(() -> {
                    if (failure != null) {
                        late.completeExceptionally(failure);
                    }
                    else {
                        late.complete(null);
                    }
                }));
                return late;
            }

            @Override
            public void close() {
                real.close();
                delivery.stop();
            }
        };
    }

    /** One thread that runs each event {@code lag} after it arrived, in arrival order. */
    private static final class Delivery {

        private record Event(long at, Runnable action) {
        }

        private static final Event STOP = new Event(0, () -> { });

        private final long lag;
        private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();

        Delivery(long lag) {
            this.lag = lag;
            Thread thread = new Thread(this::run, "lagging-subscriber");
            thread.setDaemon(true);
            thread.start();
        }

        void later(Runnable action) {
            events.add(new Event(System.nanoTime() + lag, action));
        }

        void stop() {
            events.add(STOP);
        }

        private void run() {
            try {
                for (Event event = events.take(); event != STOP; event = events.take()) {
                    for (long left = event.at - System.nanoTime(); left > 0; left = event.at - System.nanoTime()) {
                        LockSupport.parkNanos(left);
                    }
                    event.action.run();
                }
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public CompletableFuture<byte[]> getRange(String key, long start, long end) {
        return delegate.getRange(key, start, end);
    }

    @Override
    public CompletableFuture<Long> setRange(String key, long offset, byte[] value) {
        return delegate.setRange(key, offset, value);
    }

    @Override
    public CompletableFuture<Map<String, String>> hashGetAll(String key) {
        return delegate.hashGetAll(key);
    }

    @Override
    public CompletableFuture<Long> exists(String key) {
        return delegate.exists(key);
    }

    @Override
    public CompletableFuture<Long> bitCount(String key) {
        return delegate.bitCount(key);
    }

    @Override
    public CompletableFuture<Boolean> expire(String key, long millis) {
        return delegate.expire(key, millis);
    }

    @Override
    public CompletableFuture<Long> delete(String key) {
        return delegate.delete(key);
    }

    @Override
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
        return delegate.eval(script, keys, args);
    }

    @Override
    public boolean isConnected() {
        return delegate.isConnected();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
