/**
 * The Redis backend: a filter's bits in Redis strings, shared by every instance, over plain Redis or Redis
 * Cluster and with no Redis module. The logic talks to Redis through the narrow {@link io.bloomguard.redis.RedisPort};
 * {@link io.bloomguard.redis.LettuceRedisPort} adapts the application's Lettuce client to it, and
 * {@link io.bloomguard.redis.SpringDataRedisPort} any other client (Jedis, Redisson) through Spring Data Redis.
 */
@NullMarked
package io.bloomguard.redis;

import org.jspecify.annotations.NullMarked;
