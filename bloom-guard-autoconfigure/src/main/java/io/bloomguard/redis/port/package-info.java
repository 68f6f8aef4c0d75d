/**
 * What the Redis backend needs of a Redis client, and the adapters that give it: {@link
 * io.bloomguard.redis.port.RedisPort} (commands, Lua scripts by SHA-1 with their source as a fallback, a subscriber
 * for the ordered near copy) over Lettuce ({@link LettuceRedisPort}, plain Redis and Cluster)
 * or any Spring Data Redis connection factory ({@link SpringDataRedisPort}: Jedis,
 * Redisson). It depends on no other part of the backend: a client adapter is written against this package alone.
 */
@NullMarked
package io.bloomguard.redis.port;

import org.jspecify.annotations.NullMarked;
