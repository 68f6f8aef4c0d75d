package io.bloomguard.redis.layout;

import io.bloomguard.redis.state.RedisFilterIdentity;
import io.bloomguard.redis.state.RedisFilterKeys;
import io.bloomguard.redis.state.RedisFilterView;

import java.util.List;

/**
 * A layout with no layers: one generation is its blocks split over shards, a key is checked with one {@code GETRANGE}
 * of its block ({@link RedisBlockCheck}), and nothing is stored beside the shards.
 */
public abstract class UnlayeredLayout extends BlockKind {

    @Override
    public boolean checkable(RedisFilterView view) {
        return true;
    }

    @Override
    public RedisKeyCheck<?> check(RedisFilterView view, Object key, RedisKeyCheck.Events events) {
        return RedisBlockCheck.of(this, view, key, events);
    }

    @Override
    public List<String> extraKeys(RedisFilterKeys keys, RedisFilterIdentity live, int layers) {
        return List.of();
    }

    @Override
    public int layerCount(RedisFilterView view) {
        return 1;
    }
}
