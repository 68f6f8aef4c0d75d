package io.bloomguard.benchmarks;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.SharedBloomFilter;
import io.bloomguard.core.SharedFilterStatus;
import io.bloomguard.redis.RedisBloomFilter;
import io.bloomguard.redis.RedisFilterBackend;
import io.bloomguard.redis.RedisFilterSpec;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.BooleanOutput;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolKeyword;
import io.lettuce.core.protocol.ProtocolVersion;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One {@code redis-server} with the RedisBloom module, and what {@link NativeKind}s need on it: a Lettuce connection
 * as an application has it (RESP3, Lettuce's default: {@code BF.EXISTS} answers a boolean, as on Redis 8), an admin
 * connection (RESP2) for loading and sizes, bloom-guard's backend and a Redisson client, each made when first asked
 * for. The server is the one on the port in {@value #PORT_PROPERTY} (so that every JMH fork of a
 * {@link NativeFilterComparison} measures the same server), else one started here with the module
 * ({@code REDISBLOOM_MODULE}).
 *
 * <p>Items of the native filters are a key's decimal text ({@link #item}), the same for every client, so a filter
 * loaded by one client is read by the others.
 */
final class NativeServer implements AutoCloseable {

    /** System property: the loopback port of a server with the module, shared by the forks. */
    static final String PORT_PROPERTY = "bench.redis.port";

    /** Items per {@code BF.MADD} / {@code CF.INSERT} when loading. */
    static final int LOAD_BATCH = 10_000;

    private final @Nullable RedisServerProcess owned;

    final String host;

    final int port;

    final RedisClient client;

    /** RESP3, Lettuce's default: what an application's connection is. Shared by the threads (pipelined). */
    final StatefulRedisConnection<String, String> connection;

    /** RESP2, for loading, {@code *.INFO} and {@code MEMORY USAGE}. */
    final RedisCommands<String, String> admin;

    private final RedisClient adminClient;

    private @Nullable RedisFilterBackend backend;

    private @Nullable RedissonClient redisson;

    private NativeServer(@Nullable RedisServerProcess owned, String host, int port) {
        this.owned = owned;
        this.host = host;
        this.port = port;
        this.client = RedisClient.create(RedisURI.create(host, port));
        this.connection = this.client.connect(StringCodec.UTF8);
        this.adminClient = RedisClient.create(RedisURI.create(host, port));
        this.adminClient.setOptions(ClientOptions.builder().protocolVersion(ProtocolVersion.RESP2).build());
        this.admin = this.adminClient.connect(StringCodec.UTF8).sync();
    }

    /** The server named by {@value #PORT_PROPERTY}, or a new one with the module. */
    static NativeServer connect() {
        String port = System.getProperty(PORT_PROPERTY);
        if (port != null) {
            return new NativeServer(null, "127.0.0.1", Integer.parseInt(port));
        }
        return on(RedisServerProcess.startWithRedisBloom());
    }

    /** A server started by the caller, closed with this. */
    static NativeServer on(RedisServerProcess server) {
        return new NativeServer(server, server.host(), server.port());
    }

    /** A native filter's item for a benchmark key: its decimal text. */
    static String item(Object key) {
        return key.toString();
    }

    RedisFilterBackend backend() {
        if (this.backend == null) {
            this.backend = RedisFixtures.backend(this.client);
        }
        return this.backend;
    }

    RedissonClient redisson() {
        if (this.redisson == null) {
            this.redisson = RedisFixtures.redisson(this.host, this.port);
        }
        return this.redisson;
    }

    /** {@code BF.EXISTS} or {@code CF.EXISTS} on the shared RESP3 connection, one round trip. */
    boolean exists(String command, String key, String item) {
        Boolean answer = this.connection.sync()
            .dispatch(keyword(command), new BooleanOutput<>(StringCodec.UTF8),
                    new CommandArgs<>(StringCodec.UTF8).addKey(key).addValue(item));
        return Boolean.TRUE.equals(answer);
    }

    /**
     * A bloom-guard bitmap filter sized {@code sizing} holding {@code keys}: loaded here, or found already loaded (a
     * fork before this one loaded it on the shared server).
     */
    RedisBloomFilter bitmap(String name, FilterSizing sizing, List<Object> keys) {
        return loaded(name, backend().create(name, sizing, RedisFixtures.SEED, 1), keys);
    }

    /** bloom-guard's filter of {@code spec} (a native kind, say), loaded with {@code keys} as {@link #bitmap} is. */
    RedisBloomFilter filter(String name, RedisFilterSpec spec, List<Object> keys) {
        return loaded(name, backend().create(name, spec), keys);
    }

    private static RedisBloomFilter loaded(String name, RedisBloomFilter filter, List<Object> keys) {
        SharedBloomFilter.StartOutcome outcome = filter.start(RedisFixtures.feed(keys));
        if ((outcome != SharedBloomFilter.StartOutcome.LOADED_HERE
                && outcome != SharedBloomFilter.StartOutcome.ALREADY_LOADED)
                || filter.status() != SharedFilterStatus.READY) {
            throw new IllegalStateException("filter " + name + " not loaded: " + outcome + ", " + filter.status());
        }
        return filter;
    }

    /**
     * Creates {@code key} with {@code reserve} (such as {@code BF.RESERVE key 0.01 1000000}) and adds {@code keys}
     * with {@code add} ({@code BF.MADD key} or {@code CF.INSERT key NOCREATE ITEMS}) in batches, unless the key
     * exists already (loaded by an earlier fork).
     * @return the batches the server refused in part ({@link #add}), 0 if the key existed
     */
    long loadIfAbsent(String key, List<String> reserve, List<String> add, List<Object> keys) {
        if (this.admin.exists(key) > 0) {
            return 0;
        }
        call(reserve);
        return add(add, keys, 0, keys.size());
    }

    /**
     * Adds keys {@code from..to-1} of {@code keys} with {@code add} (the command and its arguments before the items),
     * in batches of {@value #LOAD_BATCH}.
     * @return the batches the server answered with an error for some of their items (a full non-scaling Bloom
     * filter: {@code ERR non scaling filter is full}; Lettuce fails the whole reply then, so {@code *.INFO}'s
     * {@code Number of items inserted} tells how many went in)
     */
    long add(List<String> add, List<Object> keys, int from, int to) {
        long refused = 0;
        for (int start = from; start < to; start += LOAD_BATCH) {
            List<String> command = new ArrayList<>(add);
            for (Object key : keys.subList(start, Math.min(to, start + LOAD_BATCH))) {
                command.add(item(key));
            }
            try {
                call(command);
            }
            catch (RedisCommandExecutionException ex) {
                if (!String.valueOf(ex.getMessage()).contains("full")) {
                    throw ex;
                }
                refused++;
            }
        }
        return refused;
    }

    /** A command on the admin (RESP2) connection; its reply as a list of elements (nested lists flattened). */
    List<Object> call(List<String> command) {
        List<Object> reply = this.admin.dispatch(keyword(command.get(0)), new NestedMultiOutput<>(StringCodec.UTF8),
                new CommandArgs<>(StringCodec.UTF8).addValues(command.subList(1, command.size())));
        List<Object> flat = new ArrayList<>();
        flatten(reply, flat);
        return flat;
    }

    /** A numeric field of {@code BF.INFO} / {@code CF.INFO}, such as {@code Size}. */
    long info(String command, String key, String field) {
        List<Object> reply = call(List.of(command, key));
        for (int i = 0; i + 1 < reply.size(); i += 2) {
            if (field.equalsIgnoreCase(String.valueOf(reply.get(i)))) {
                return ((Number) reply.get(i + 1)).longValue();
            }
        }
        throw new IllegalStateException(command + " " + key + " has no field " + field + ": " + reply);
    }

    /** {@code MEMORY USAGE key SAMPLES 0} summed over the keys matching {@code pattern}. */
    long memoryUsage(String pattern) {
        long bytes = 0;
        ScanIterator<String> keys = ScanIterator.scan(this.admin, ScanArgs.Builder.matches(pattern).limit(1000));
        while (keys.hasNext()) {
            String key = keys.next();
            Long usage = this.admin.memoryUsage(key);
            bytes += (usage != null) ? usage : 0;
        }
        return bytes;
    }

    /** The one key matching {@code pattern} whose type is the module's ({@code MBbloom--}, {@code MBbloomCF}). */
    String moduleKey(String pattern) {
        List<String> found = new ArrayList<>();
        ScanIterator<String> keys = ScanIterator.scan(this.admin, ScanArgs.Builder.matches(pattern).limit(1000));
        while (keys.hasNext()) {
            String key = keys.next();
            if (this.admin.type(key).startsWith("MBbloom")) {
                found.add(key);
            }
        }
        if (found.size() != 1) {
            throw new IllegalStateException("Expected one module filter matching " + pattern + ": " + found);
        }
        return found.get(0);
    }

    private static void flatten(Object reply, List<Object> into) {
        if (reply instanceof List<?> elements) {
            for (Object element : elements) {
                flatten(element, into);
            }
        }
        else {
            into.add(reply);
        }
    }

    static ProtocolKeyword keyword(String name) {
        byte[] bytes = name.toUpperCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII);
        return new ProtocolKeyword() {
            @Override
            public byte[] getBytes() {
                return bytes;
            }

            @Override
            public String toString() {
                return name;
            }
        };
    }

    @Override
    public void close() {
        if (this.backend != null) {
            this.backend.close();
        }
        if (this.redisson != null) {
            this.redisson.shutdown();
        }
        this.connection.close();
        this.client.shutdown();
        this.adminClient.shutdown();
        if (this.owned != null) {
            this.owned.close();
        }
    }

}
