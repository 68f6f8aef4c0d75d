package io.bloomguard.redis;

import io.bloomguard.redis.kind.RedisKind;

/**
 * What {@link RedisFilterBackend#chooseKind} chose for a filter ({@code redis.kind: auto}), and why.
 *
 * @param kind   the kind to create the filter as
 * @param reason why, in words for the startup log: the stored filter it follows, or what the server has
 * @since 0.1.0
 */
public record RedisKindChoice(RedisKind kind, String reason) {
}
