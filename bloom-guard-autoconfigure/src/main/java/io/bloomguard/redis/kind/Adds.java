package io.bloomguard.redis.kind;

import java.util.List;

/**
 * One write of keys into the generations of a view, as their kinds store them: the script call for each shard the
 * keys fall in, all of which are sent before any reply is awaited. Made for one write attempt by
 * {@link RedisKind#adds}, from the kind of the live generation (or of the next one while none is live).
 *
 * <p>Usage: {@code Adds adds = kind.adds(live, generation, next, keys); keys.forEach(adds::add);
 * for (ScriptCall call : adds.calls()) send(call); ... AddReply.of(reply)}
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public interface Adds {

    /** Places a key in every generation this write goes to. */
    void add(Object key);

    /** One call per shard with keys, in the order their shards were first placed. */
    List<ScriptCall> calls();
}
