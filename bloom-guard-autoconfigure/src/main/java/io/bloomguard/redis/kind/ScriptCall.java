package io.bloomguard.redis.kind;

import io.bloomguard.redis.port.LuaScript;

import java.util.List;

/**
 * One script call a kind asks the engine to send for a filter: an add into one shard, a remove.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 *
 * @param carried the filter's keys the call writes, for retrying it or keeping it for replay: a key put twice in
 *                one write twice (a counting filter counts both puts), a key in both generations of a rebuild once
 * @hidden
 */
public record ScriptCall(LuaScript script, List<String> keys, List<String> args, List<Object> carried) {
}
