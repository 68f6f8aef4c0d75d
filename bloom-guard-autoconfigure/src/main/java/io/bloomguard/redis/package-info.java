/**
 * The Redis backend: a filter's bits in Redis strings, shared by every instance, over plain Redis or Redis
 * Cluster and with no Redis module. The logic talks to Redis through the narrow {@link io.bloomguard.redis.RedisPort};
 * {@link io.bloomguard.redis.LettuceRedisPort} adapts the application's Lettuce client to it, and
 * {@link io.bloomguard.redis.SpringDataRedisPort} any other client (Jedis, Redisson) through Spring Data Redis.
 *
 * <p>What keeps a {@link io.bloomguard.redis.RedisBloomFilter} from ever answering "absent" for a key that was added:
 * <ul>
 * <li>the bitmap's key name carries the {@link io.bloomguard.redis.state.RedisFilterIdentity} its bits were written
 * with, so an instance that would compute other positions reads a missing key ("not ready") instead;</li>
 * <li>a missing bitmap, a filter still loading, a stored filter of another size, or adds that could not be
 * written make the filter not {@linkplain io.bloomguard.redis.RedisBloomFilter#trustedToReject() trusted}, and
 * calls pass through;</li>
 * <li>a rebuild creates the next generation first and every add from then on reaches both, so the swap loses
 * nothing;</li>
 * <li>adds that fail are buffered and replayed; past the buffer's bound the filter is marked stale in Redis
 * for every instance and rebuilt.</li>
 * </ul>
 *
 * <p>This package is the backend's public face ({@link io.bloomguard.redis.RedisFilterBackend},
 * {@link io.bloomguard.redis.RedisBloomFilter}, their settings and exceptions, the port and its adapters); the work
 * is done in sub-packages, one a job: {@code client} (connection, breakers, timeouts), {@code access} (credentials,
 * ACL, key types), {@code state} (what Redis holds), {@code layout} (codecs and scripts of each kind of filter),
 * {@code read}, {@code write} (with the outage buffer), {@code build} (loads, rebuilds, lifecycle) and {@code copy}
 * (the near copy and its ordered add feed).
 */
@NullMarked
package io.bloomguard.redis;

import org.jspecify.annotations.NullMarked;
