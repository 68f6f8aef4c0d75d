package io.bloomguard.redis.layout;

import io.bloomguard.redis.state.RedisFilterIdentity;
import io.bloomguard.redis.state.RedisFilterKeys;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;

/**
 * Adds into a filter that grows by layers, whose layers this instance has sized: each key into the newest layer
 * unless an older one holds it ({@link RedisLayerScripts#ADD}, on shard 0 where the layers are), and during a
 * rebuild into the next generation too: its shard 0 in the same script, its other shards (a next generation of
 * another shape may have several) through the adds without layers.
 */
final class LayeredAdds implements RedisAdds {

    private final RedisFilterIdentity live;
    private final RedisLayers layers;
    private final @Nullable RedisFilterIdentity next;
    private final ShardWrite layerShard;
    private final BlockAdds otherShards;
    private boolean placed;

    LayeredAdds(RedisFilterIdentity live, RedisLayers layers, @Nullable RedisFilterIdentity next,
            RedisFilterKeys names) {
        this.live = live;
        this.layers = layers;
        this.next = next;
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
    public List<Call> calls() {
        List<Call> calls = new ArrayList<>();
        if (!placed) {
            return calls;
        }
        calls.add(new Call(RedisLayerScripts.ADD, layerShard.layeredKeys(layers, next),
                layerShard.layeredArgs(live, layers, next), layerShard.allKeys()));
        calls.addAll(otherShards.calls());
        return calls;
    }
}
