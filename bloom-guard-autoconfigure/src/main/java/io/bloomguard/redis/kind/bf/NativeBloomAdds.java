package io.bloomguard.redis.kind.bf;

import io.bloomguard.core.KeyCanonicalizer;
import io.bloomguard.redis.kind.Adds;
import io.bloomguard.redis.kind.RedisFilterIdentity;
import io.bloomguard.redis.kind.RedisFilterKeys;
import io.bloomguard.redis.kind.ScriptCall;
import io.bloomguard.redis.kind.ShardWrite;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;

/**
 * Adds into native generations: each key's text to the live filter and, during a rebuild, to the next one, in one
 * {@link NativeBloomScripts#ADD} call (one shard). A generation of a bitmap kind is never written here: a rebuild
 * does not change a filter between the two ({@code RedisLockedBuild} refuses it).
 */
final class NativeBloomAdds implements Adds {

    private final @Nullable RedisFilterIdentity live;
    private final @Nullable RedisFilterIdentity next;
    private final RedisFilterKeys names;
    private final List<Object> keys = new ArrayList<>();

    NativeBloomAdds(@Nullable RedisFilterIdentity live, @Nullable RedisFilterIdentity next, RedisFilterKeys names) {
        this.live = nativeOnly(live);
        this.next = nativeOnly(next);
        this.names = names;
    }

    private static @Nullable RedisFilterIdentity nativeOnly(@Nullable RedisFilterIdentity generation) {
        if (generation != null && generation.kind() != NativeBloomKind.INSTANCE) {
            throw new IllegalStateException("a native filter's add cannot write generation "
                    + generation.fingerprintWithoutSeed() + " of another kind");
        }
        return generation;
    }

    @Override
    public void add(Object key) {
        KeyCanonicalizer.canonicalText(key); // refused here, as a bitmap's add refuses it, not in the script
        keys.add(key);
    }

    @Override
    public List<ScriptCall> calls() {
        if (keys.isEmpty()) {
            return List.of();
        }
        int liveCount = (live != null) ? keys.size() : 0;
        int nextCount = (next != null) ? keys.size() : 0;
        List<String> args = new ArrayList<>(4 + liveCount + nextCount);
        args.add((live != null) ? live.fingerprint() : "");
        args.add((next != null) ? next.fingerprint() : "");
        args.add(Integer.toString(liveCount));
        args.add(Integer.toString(nextCount));
        for (int copy = 0; copy < ((live != null) ? 1 : 0) + ((next != null) ? 1 : 0); copy++) {
            for (Object key : keys) {
                args.add(KeyCanonicalizer.canonicalText(key));
            }
        }
        List<String> keyNames = new ShardWrite(0, names).keys(live, next);
        return List.of(new ScriptCall(NativeBloomScripts.ADD, keyNames, args, List.copyOf(keys)));
    }
}
