package io.bloomguard.benchmarks;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.redis.RedisBloomFilter;
import io.bloomguard.redis.RedisFilterSpec;
import io.bloomguard.redis.RedisKinds;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import org.redisson.api.RBloomFilterNative;
import org.redisson.client.codec.StringCodec;

import java.util.List;
import java.util.Locale;

/**
 * One way to check a key against a filter of n keys at ε on a server with the RedisBloom module, or a round-trip
 * floor to compare with. Each value loads its filter (or finds it loaded on the shared server) and returns its
 * check.
 *
 * <p>Native filters are named for their command family and ε, so the {@code BF.*} kinds and Redisson's read the
 * same {@code BF.RESERVE}d filter: {@code BF.RESERVE key ε n} (RedisBloom's default {@code EXPANSION 2}), cuckoo
 * {@code CF.RESERVE key n} (defaults: {@code BUCKETSIZE 2}, {@code EXPANSION 1}, 8-bit fingerprints, whatever ε).
 */
public enum NativeKind {

    /** {@code GET} of a 64-byte value on the shared connection: the round-trip floor. */
    GET(false) {
        @Override
        Check open(NativeServer server, double fpp, List<Object> keys) {
            server.admin.set("bench:get", "x".repeat(64));
            RedisCommands<String, String> sync = server.connection.sync();
            return (key) -> sync.get("bench:get") != null;
        }
    },

    /** {@code PING} on the shared connection. */
    PING(false) {
        @Override
        Check open(NativeServer server, double fpp, List<Object> keys) {
            RedisCommands<String, String> sync = server.connection.sync();
            return (key) -> "PONG".equals(sync.ping());
        }
    },

    /** bloom-guard's Redis backend, bitmap kind: {@code mightContain}, one {@code GETRANGE} of the key's block. */
    BITMAP(true) {
        @Override
        Check open(NativeServer server, double fpp, List<Object> keys) {
            RedisBloomFilter filter = server.bitmap(bitmapName(fpp), FilterSizing.of(keys.size(), fpp), keys);
            return filter::mightContain;
        }
    },

    /** {@code BF.EXISTS key item} through Lettuce: 0 for a missing key too, so not enough for a guard alone. */
    BF_EXISTS(true) {
        @Override
        Check open(NativeServer server, double fpp, List<Object> keys) {
            String key = loadBloom(server, fpp, keys);
            return (probe) -> server.exists("BF.EXISTS", key, NativeServer.item(probe));
        }
    },

    /**
     * {@code EXISTS} and {@code BF.EXISTS} in one script ({@code EVALSHA}), as a native kind must check: a missing
     * filter answers -1, read as "might contain", atomically with the answer.
     */
    BF_EXISTS_SCRIPT(true) {
        @Override
        Check open(NativeServer server, double fpp, List<Object> keys) {
            return script(server, "BF.EXISTS", loadBloom(server, fpp, keys));
        }
    },

    /** {@code CF.EXISTS key item} through Lettuce. */
    CF_EXISTS(true) {
        @Override
        Check open(NativeServer server, double fpp, List<Object> keys) {
            String key = loadCuckoo(server, keys);
            return (probe) -> server.exists("CF.EXISTS", key, NativeServer.item(probe));
        }
    },

    /** {@code EXISTS} and {@code CF.EXISTS} in one script, as for {@link #BF_EXISTS_SCRIPT}. */
    CF_EXISTS_SCRIPT(true) {
        @Override
        Check open(NativeServer server, double fpp, List<Object> keys) {
            return script(server, "CF.EXISTS", loadCuckoo(server, keys));
        }
    },

    /**
     * bloom-guard's native Bloom kind ({@code redis.kind: native}): {@code mightContain}, one {@code EVALSHA} of
     * {@code EXISTS} and {@code BF.EXISTS}, through the backend as a guard calls it.
     */
    NATIVE_BLOOM(true) {
        @Override
        Check open(NativeServer server, double fpp, List<Object> keys) {
            return server.filter("bench-native-bf-" + fpp, RedisFilterSpec.builder(RedisKinds.NATIVE_BLOOM,
                    FilterSizing.of(keys.size(), fpp)).build(), keys)::mightContain;
        }
    },

    /** bloom-guard's native cuckoo kind ({@code type: cuckoo}, {@code redis.kind: native}), as {@link #NATIVE_BLOOM}. */
    NATIVE_CUCKOO(true) {
        @Override
        Check open(NativeServer server, double fpp, List<Object> keys) {
            return server.filter("bench-native-cf-" + fpp, RedisFilterSpec.builder(RedisKinds.NATIVE_CUCKOO,
                    FilterSizing.of(keys.size(), fpp)).build(), keys)::mightContain;
        }
    },

    /** Redisson's {@code RBloomFilterNative.exists} ({@code BF.EXISTS}; StringCodec, so the same items). */
    REDISSON_NATIVE(true) {
        @Override
        Check open(NativeServer server, double fpp, List<Object> keys) {
            RBloomFilterNative<String> filter = server.redisson()
                .getBloomFilterNative(loadBloom(server, fpp, keys), StringCodec.INSTANCE);
            return (probe) -> filter.exists(NativeServer.item(probe));
        }
    };

    /** Returns -1 for a missing filter, else the module's answer (RESP2 inside scripts: 0 or 1). */
    static final String CHECK_SCRIPT = "if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end "
            + "return redis.call(ARGV[1], KEYS[1], ARGV[2])";

    private final boolean filter;

    NativeKind(boolean filter) {
        this.filter = filter;
    }

    /** Whether it checks a filter (and so depends on ε), rather than being a floor. */
    boolean filter() {
        return this.filter;
    }

    /**
     * Loads (or finds) this kind's filter of {@code keys} at {@code fpp} and returns its check.
     * @param keys the present keys, {@code n} of them
     */
    abstract Check open(NativeServer server, double fpp, List<Object> keys);

    /** One check of one key, as the kind does it. */
    @FunctionalInterface
    interface Check {

        boolean mightContain(Object key);

    }

    static String bitmapName(double fpp) {
        return "bitmap-" + fppName(fpp);
    }

    static String bloomKey(double fpp) {
        return "bench:bf:" + fppName(fpp);
    }

    static String cuckooKey() {
        return "bench:cf";
    }

    private static String fppName(double fpp) {
        return String.format(Locale.ROOT, "%s", fpp);
    }

    private static String loadBloom(NativeServer server, double fpp, List<Object> keys) {
        String key = bloomKey(fpp);
        server.loadIfAbsent(key, List.of("BF.RESERVE", key, Double.toString(fpp), Integer.toString(keys.size())),
                List.of("BF.MADD", key), keys);
        return key;
    }

    private static String loadCuckoo(NativeServer server, List<Object> keys) {
        String key = cuckooKey();
        server.loadIfAbsent(key, List.of("CF.RESERVE", key, Integer.toString(keys.size())),
                List.of("CF.INSERT", key, "NOCREATE", "ITEMS"), keys);
        return key;
    }

    private static Check script(NativeServer server, String command, String key) {
        RedisCommands<String, String> sync = server.connection.sync();
        String sha = sync.scriptLoad(CHECK_SCRIPT);
        String[] keys = {key};
        return (probe) -> {
            Long answer = sync.evalsha(sha, ScriptOutputType.INTEGER, keys, command, NativeServer.item(probe));
            return answer == null || answer != 0;
        };
    }

}
