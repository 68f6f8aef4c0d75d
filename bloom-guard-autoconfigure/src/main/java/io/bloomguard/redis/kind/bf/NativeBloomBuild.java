package io.bloomguard.redis.kind.bf;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.KeyCanonicalizer;
import io.bloomguard.redis.kind.RedisFilterIdentity;
import io.bloomguard.redis.kind.ScriptCall;
import io.bloomguard.redis.kind.ServerBuild;
import io.bloomguard.redis.port.LuaScript;
import io.bloomguard.redis.port.RedisPort;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** How a native Bloom generation is built: reserved, filled with {@code BF.INSERT NOCREATE}, renamed live. */
final class NativeBloomBuild implements ServerBuild {

    static final NativeBloomBuild INSTANCE = new NativeBloomBuild();

    private NativeBloomBuild() {
    }

    @Override
    public ScriptCall begin(String meta, String next, RedisFilterIdentity target, FilterSizing sizing, String epoch,
            long fence) {
        return new ScriptCall(NativeBloomScripts.BEGIN, List.of(meta, next), List.of(target.fingerprint(),
                Long.toString(sizing.expectedSize()), epoch, Long.toString(fence), Double.toString(sizing.errorRate())),
                List.of());
    }

    @Override
    public CompletableFuture<Long> insert(RedisPort port, String next, List<Object> keys) {
        List<String> texts = new ArrayList<>(keys.size());
        for (Object key : keys) {
            texts.add(KeyCanonicalizer.canonicalText(key));
        }
        return port.eval(NativeBloomScripts.BUILD_INSERT, List.of(next), texts).thenApply(Long.class::cast);
    }

    @Override
    public LuaScript finish() {
        return NativeBloomScripts.FINISH;
    }
}
