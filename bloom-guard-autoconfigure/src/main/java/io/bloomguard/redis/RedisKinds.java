package io.bloomguard.redis;

import io.bloomguard.redis.kind.BlockKind;
import io.bloomguard.redis.kind.RedisKind;
import io.bloomguard.redis.kind.bf.NativeBloomKind;
import io.bloomguard.redis.kind.cf.NativeCuckooKind;
import io.bloomguard.redis.kind.counting.CountingKind;
import io.bloomguard.redis.kind.layered.LayeredKind;
import io.bloomguard.redis.kind.plain.PlainKind;

import java.util.List;

/**
 * The kinds of Redis filter this version stores, the one place a kind is registered: a filter is created as one of
 * them ({@link RedisFilterSpec}), and every instance recognises a stored filter of any of them, whatever it is
 * configured as (it sees another kind as another shape, {@code MISMATCHED}, rather than misreading it).
 *
 * @since 0.1.0
 */
public final class RedisKinds {

    /** A bit a position ({@code type: bloom}). */
    public static final RedisKind BLOOM = PlainKind.INSTANCE;

    /** A 4-bit counter a position, so that keys can be removed ({@code type: counting}). */
    public static final RedisKind COUNTING = CountingKind.INSTANCE;

    /** Bits in layers on one shard, a larger layer added as the newest fills ({@code growth: scale}). */
    public static final RedisKind LAYERED = LayeredKind.INSTANCE;

    /**
     * A filter of the server's own, {@code BF.*} ({@code redis.kind: native}): RedisBloom, Redis 8, Valkey's bloom
     * module.
     */
    public static final RedisKind NATIVE_BLOOM = NativeBloomKind.INSTANCE;

    /**
     * A cuckoo filter of the server's own, {@code CF.*} ({@code type: cuckoo}, {@code redis.kind: native}), from which
     * keys whose rows are proven gone are deleted.
     */
    public static final RedisKind NATIVE_CUCKOO = NativeCuckooKind.INSTANCE;

    /** Every kind registered: what a stored generation's fingerprint is parsed against. */
    static final List<BlockKind> ALL = List.of(PlainKind.INSTANCE, CountingKind.INSTANCE, LayeredKind.INSTANCE,
            NativeBloomKind.INSTANCE, NativeCuckooKind.INSTANCE);

    private RedisKinds() {
    }
}
