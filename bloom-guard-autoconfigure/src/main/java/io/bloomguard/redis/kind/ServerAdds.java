package io.bloomguard.redis.kind;

import io.bloomguard.core.KeyCanonicalizer;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;

/**
 * Adds into generations of a {@link ServerKind}: each key's text to the live filter and, during a rebuild, to the next
 * one, in one call of the kind's {@code add} script (one shard). A generation of another kind is never written here: a
 * rebuild does not change a filter between a bitmap and a server's filter ({@code RedisLockedBuild} refuses it).
 */
final class ServerAdds implements Adds {

    private final ServerKind kind;
    private final @Nullable RedisFilterIdentity live;
    private final @Nullable RedisFilterIdentity next;
    private final RedisFilterKeys names;
    private final List<Object> keys = new ArrayList<>();

    ServerAdds(ServerKind kind, @Nullable RedisFilterIdentity live, @Nullable RedisFilterIdentity next,
            RedisFilterKeys names) {
        this.kind = kind;
        this.live = ofKind(kind, live);
        this.next = ofKind(kind, next);
        this.names = names;
    }

    private static @Nullable RedisFilterIdentity ofKind(ServerKind kind, @Nullable RedisFilterIdentity generation) {
        if (generation != null && generation.kind() != kind) {
            throw new IllegalStateException("a " + kind.type() + " filter's add cannot write generation "
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
        return List.of(new ScriptCall(kind.scripts().add(), keyNames, args, List.copyOf(keys)));
    }
}
