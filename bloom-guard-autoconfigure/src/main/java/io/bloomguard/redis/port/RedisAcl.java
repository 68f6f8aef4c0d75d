package io.bloomguard.redis.port;

import java.util.List;
import java.util.stream.Collectors;

/**
 * What a Redis user needs for bloom-guard to work with a key prefix: every command the backend sends, directly or
 * from its scripts, and the keys under the prefix. A user with less is refused at startup (see
 * {@link RedisAccessDeniedException}).
 *
 * <p>Usage: {@code ACL SETUSER app on >secret } followed by {@code new RedisAcl("bloom-guard:").rules()}:
 * {@code ~bloom-guard:* +bitcount +bitfield +bitop ...}.
 *
 * @param keyPrefix {@code bloom-guard.redis.key-prefix}: every key the backend touches starts with it
 *
 * @since 0.1.0
 */
public record RedisAcl(String keyPrefix) {

    /**
     * Every command the backend sends, in alphabetical order. {@code EVAL} is needed besides {@code EVALSHA}: a
     * server that does not have a script yet (after a restart, a failover or {@code SCRIPT FLUSH}) is sent its source.
     * {@code BITFIELD} is sent only for counting filters ({@code type: counting}): a user with no counting filter
     * may go without it, and the startup check does not ask for it.
     */
    public static final List<String> COMMANDS = List.of("bitcount", "bitfield", "bitop", "del", "eval", "evalsha", "exists",
            "get", "getbit", "getrange", "hdel", "hget", "hgetall", "hincrby", "hset", "pexpire", "rename", "set",
            "setbit", "setrange");

    /** The commands of {@link #COMMANDS} that only a counting filter sends. */
    public static final List<String> COUNTING_ONLY = List.of("bitfield");

    /** The key pattern the user needs: {@code ~<prefix>*}. */
    public String keyPattern() {
        return "~" + keyPrefix + "*";
    }

    /** The ACL rules, as {@code ACL SETUSER} takes them after the user's name and password. */
    public String rules() {
        return keyPattern() + " " + COMMANDS.stream().map(command -> "+" + command).collect(Collectors.joining(" "));
    }

    @Override
    public String toString() {
        return rules();
    }
}
