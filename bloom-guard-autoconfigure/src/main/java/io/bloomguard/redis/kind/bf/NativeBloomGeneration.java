package io.bloomguard.redis.kind.bf;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.KeyCanonicalizer;
import io.bloomguard.redis.kind.CopiedBits;
import io.bloomguard.redis.kind.Generation;
import io.bloomguard.redis.kind.KeyCheck;
import io.bloomguard.redis.kind.RedisCaller;
import io.bloomguard.redis.kind.RedisCalls;
import io.bloomguard.redis.kind.RedisFilterIdentity;
import io.bloomguard.redis.kind.RedisFilterKeys;

import java.util.ArrayList;
import java.util.List;

/**
 * A live native generation: one filter of the server's, {@code <prefix>{name}:bits:<fingerprint>}. A key is checked
 * with one script ({@code EXISTS} and {@code BF.EXISTS}), a batch with one {@code BF.MEXISTS} script, and a filter
 * that is gone answers "might contain" and tells the filter it is not ready.
 */
final class NativeBloomGeneration implements Generation {

    /**
     * {@code BF.RESERVE}'s sub-filters tighten their error rate by half each ({@code EXPANSION} grows their size), so
     * a filter that scaled stays below twice its error rate.
     */
    private static final double SCALED_BOUND = 2;

    private final RedisFilterIdentity identity;
    private final String build;
    private final String filter;

    NativeBloomGeneration(RedisFilterIdentity identity, RedisFilterKeys keys, String build) {
        this.identity = identity;
        this.build = build;
        this.filter = keys.bits(0, identity);
    }

    @Override
    public RedisFilterIdentity identity() {
        return identity;
    }

    @Override
    public String build() {
        return build;
    }

    @Override
    public int layerCount() {
        return 1;
    }

    @Override
    public boolean readable() {
        return true;
    }

    @Override
    public List<String> dataKeys() {
        return List.of(filter);
    }

    @Override
    public List<String> dataKeysIn(int shard) {
        return (shard == 0) ? List.of(filter) : List.of();
    }

    @Override
    public KeyCheck<?> check(Object key, KeyCheck.Events events) {
        String text = KeyCanonicalizer.canonicalText(key);
        return new KeyCheck<Long>() {
            @Override
            public java.util.concurrent.CompletableFuture<Long> send(io.bloomguard.redis.port.RedisPort port) {
                return port.eval(NativeBloomScripts.CHECK, List.of(filter), List.of(text)).thenApply(Long.class::cast);
            }

            @Override
            public boolean answer(Long reply) {
                if (reply < 0) {
                    events.bitmapMissing(NativeBloomGeneration.this);
                    return true;
                }
                return reply != 0;
            }
        };
    }

    @Override
    public boolean[] checkAll(List<?> keys, boolean[] held, RedisCalls calls, KeyCheck.Events events) {
        boolean[] answers = new boolean[keys.size()];
        List<Integer> asked = new ArrayList<>();
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < answers.length; i++) {
            if (held[i]) {
                answers[i] = true;
            }
            else {
                asked.add(i);
                texts.add(KeyCanonicalizer.canonicalText(keys.get(i)));
            }
        }
        if (asked.isEmpty()) {
            return answers;
        }
        byte[] reply = (byte[]) calls.await(calls.send(port -> port.eval(NativeBloomScripts.CHECK_ALL,
                List.of(filter), texts)));
        boolean missing = reply.length > 0 && reply[0] == '-';
        if (missing) {
            events.bitmapMissing(this);
        }
        for (int j = 0; j < asked.size(); j++) {
            answers[asked.get(j)] = missing || reply[j] == '1';
        }
        return answers;
    }

    @Override
    public Fill readFill(RedisCaller via, FilterSizing sizing) {
        long keys = via.call(port -> port.eval(NativeBloomScripts.CARD, List.of(filter), List.of())
                .thenApply(Long.class::cast));
        if (keys < 0) {
            return new Fill(0, sizing.errorRate(), -1);
        }
        double fpp = (keys <= sizing.expectedSize()) ? classicFpp(keys, sizing)
                : Math.min(1, SCALED_BOUND * sizing.errorRate());
        return new Fill(keys, fpp, -1);
    }

    /** The server's first filter at {@code keys} keys: {@code -ln ε / ln²2} bits and {@code ⌈ln 2 · that⌉} hashes a key. */
    private static double classicFpp(long keys, FilterSizing sizing) {
        double bitsPerKey = -Math.log(sizing.errorRate()) / (Math.log(2) * Math.log(2));
        double hashes = Math.ceil(Math.log(2) * bitsPerKey);
        return Math.pow(1 - Math.exp(-hashes * keys / (bitsPerKey * sizing.expectedSize())), hashes);
    }

    @Override
    public CopiedBits newCopy(FilterSizing sizing) {
        throw new UnsupportedOperationException("a native filter (BF.*) keeps its bits in the server's own layout:"
                + " no near copy can read them");
    }
}
