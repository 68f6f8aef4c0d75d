package io.bloomguard.redis.kind;

import io.bloomguard.redis.port.LuaScript;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Adds into generations without layers (a layered filter's layer 0 is one, while this instance cannot read its
 * layers): each key's offsets in the live generation and, during a rebuild, in the next one, one script call per
 * shard. The script is the add of whichever generation counts, since it sets the bits of the other: a rebuild may
 * change the kind.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class BlockAdds implements Adds {

    private final @Nullable RedisFilterIdentity live;
    private final @Nullable RedisFilterIdentity next;
    private final RedisFilterKeys names;
    private final LuaScript script;
    private final Map<Integer, ShardWrite> writes = new LinkedHashMap<>();

    /** @param live the live generation keys are added to while it is being rebuilt too; {@code null} for none */
    public BlockAdds(@Nullable RedisFilterIdentity live, @Nullable RedisFilterIdentity next, RedisFilterKeys names) {
        this.live = live;
        this.next = next;
        this.names = names;
        this.script = scriptFor(live, next);
    }

    private static LuaScript scriptFor(@Nullable RedisFilterIdentity live, @Nullable RedisFilterIdentity next) {
        if (next != null && next.kind().counts()) {
            return next.kind().addScript();
        }
        return (live != null) ? live.kind().addScript() : RedisScripts.ADD;
    }

    /**
     * The add, with no keys, that asks shard 0 whether a build was announced that a view with no generation does
     * not know of: it answers -2 then, -1 when there is none.
     */
    public static ScriptCall announcedProbe(RedisFilterKeys names) {
        BlockAdds none = new BlockAdds(null, null, names);
        return none.call(new ShardWrite(0, names));
    }

    @Override
    public void add(Object key) {
        if (live != null) {
            RedisFilterIdentity.KeyBits located = live.locate(key);
            write(located.shard()).addLive(key, located.offsets());
        }
        addNext(key);
    }

    private void addNext(Object key) {
        if (next != null) {
            addNext(key, next.locate(key));
        }
    }

    /** Places a key in the next generation only (while one is built), where {@code located} in it. */
    public void addNext(Object key, RedisFilterIdentity.KeyBits located) {
        write(located.shard()).addNext(key, located.offsets());
    }

    private ShardWrite write(int shard) {
        return writes.computeIfAbsent(shard, s -> new ShardWrite(s, names));
    }

    @Override
    public List<ScriptCall> calls() {
        List<ScriptCall> calls = new ArrayList<>(writes.size());
        for (ShardWrite write : writes.values()) {
            calls.add(call(write));
        }
        return calls;
    }

    private ScriptCall call(ShardWrite write) {
        return new ScriptCall(script, write.keys(live, next), write.args(live, next), write.allKeys());
    }
}
