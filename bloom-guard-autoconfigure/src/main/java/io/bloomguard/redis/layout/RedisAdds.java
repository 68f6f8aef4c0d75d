package io.bloomguard.redis.layout;

import io.bloomguard.redis.port.LuaScript;

import java.util.List;

/**
 * One write of keys into the generations of a view, as their kinds store them: the script call for each shard the
 * keys fall in, all of which are sent before any reply is awaited. Made for one write attempt by
 * {@link RedisLayout#adds}, from the kind of the live generation (or of the next one while none is live).
 *
 * <p>Usage: {@code RedisAdds adds = kind.adds(live, generation, next, keys); keys.forEach(adds::add);
 * for (RedisAdds.Call call : adds.calls()) send(call); ... AddReply.of(reply)}
 */
public interface RedisAdds {

    /** Places a key in every generation this write goes to. */
    void add(Object key);

    /** One call per shard with keys, in the order their shards were first placed. */
    List<Call> calls();

    /**
     * One script call.
     *
     * @param carried every key of the call, for retrying it or keeping it for replay: a key put twice in the write
     *                twice (a counting filter counts both puts), a key in both generations once
     */
    record Call(LuaScript script, List<String> keys, List<String> args, List<Object> carried) {
    }
}
