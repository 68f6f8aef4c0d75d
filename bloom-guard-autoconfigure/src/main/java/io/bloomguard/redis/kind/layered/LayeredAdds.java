package io.bloomguard.redis.kind.layered;

import io.bloomguard.redis.kind.Adds;
import io.bloomguard.redis.kind.BlockAdds;
import io.bloomguard.redis.kind.RedisFilterIdentity;
import io.bloomguard.redis.kind.RedisFilterKeys;
import io.bloomguard.redis.kind.ScriptCall;
import io.bloomguard.redis.kind.ShardWrite;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;

/**
 * Adds into a filter that grows by layers, whose layers this instance has sized: each key into the newest layer
 * unless an older one holds it ({@link LayerScripts#ADD}, on shard 0 where the layers are), and during a
 * rebuild into the next generation too: its shard 0 in the same script, its other shards (a next generation of
 * another shape may have several) through the adds without layers.
 */
final class LayeredAdds implements Adds {

    private final RedisFilterIdentity live;
    private final Layers layers;
    private final @Nullable RedisFilterIdentity next;
    private final RedisFilterKeys names;
    private final ShardWrite layerShard;
    private final BlockAdds otherShards;
    private boolean placed;

    LayeredAdds(RedisFilterIdentity live, Layers layers, @Nullable RedisFilterIdentity next,
            RedisFilterKeys names) {
        this.live = live;
        this.layers = layers;
        this.next = next;
        this.names = names;
        this.layerShard = new ShardWrite(0, names);
        this.otherShards = new BlockAdds(null, next, names);
    }

    @Override
    public void add(Object key) {
        placed = true;
        layerShard.addLive(key, layers.offsetsOf(key));
        if (next != null) {
            RedisFilterIdentity.KeyBits located = next.locate(key);
            if (located.shard() == 0) {
                layerShard.addNext(key, located.offsets());
            }
            else {
                otherShards.addNext(key, located);
            }
        }
    }

    @Override
    public List<ScriptCall> calls() {
        List<ScriptCall> calls = new ArrayList<>();
        if (!placed) {
            return calls;
        }
        calls.add(new ScriptCall(LayerScripts.ADD, layeredKeys(), layeredArgs(), layerShard.allKeys()));
        calls.addAll(otherShards.calls());
        return calls;
    }

    /** KEYS of {@link LayerScripts#ADD}: the layers, the next generation's shard 0, a new layer, the channel. */
    private List<String> layeredKeys() {
        List<String> keyNames = new ArrayList<>(layers.checkKeys());
        keyNames.add((next != null) ? names.next(0, next) : names.meta(0) + ":none");
        keyNames.add(layers.growKey(names));
        keyNames.add(names.adds(0));
        return keyNames;
    }

    /**
     * ARGV of {@link LayerScripts#ADD}: the view the metadata must match, and each key's offsets in every layer
     * ({@link Layers#offsetsOf}), then in the next generation's shard 0.
     */
    private List<String> layeredArgs() {
        List<String> liveOffsets = layerShard.liveOffsets();
        List<String> nextOffsets = layerShard.nextOffsets();
        List<String> args = new ArrayList<>(8 + layers.count() + liveOffsets.size() + nextOffsets.size());
        args.add(live.fingerprint());
        args.add((next != null) ? next.fingerprint() : "");
        args.add(Integer.toString(layers.count()));
        args.add(Long.toString(layers.fullAtSetBits()));
        args.add(Long.toString(layers.growLastBit()));
        args.add(Integer.toString(layerShard.liveKeyCount()));
        args.add(Integer.toString(next != null ? next.hashCount() : 0));
        args.add(Integer.toString(layerShard.nextKeyCount()));
        for (int layer = 0; layer < layers.count(); layer++) {
            args.add(Integer.toString(layers.sizing(layer).hashCount()));
        }
        args.addAll(liveOffsets);
        args.addAll(nextOffsets);
        return args;
    }
}
