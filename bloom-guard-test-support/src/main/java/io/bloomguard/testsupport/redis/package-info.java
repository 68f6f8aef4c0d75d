/**
 * Real {@code redis-server} processes for tests and benchmarks: single nodes that can be killed, frozen and
 * restarted on the same port ({@link io.bloomguard.testsupport.redis.RedisServerProcess}), a three-node cluster
 * ({@link io.bloomguard.testsupport.redis.RedisClusterProcess}, with replicas if asked), a primary with a replica and a
 * Sentinel ({@link io.bloomguard.testsupport.redis.RedisSentinelProcess}), the losses a failover or an old RDB file
 * cause, each proven ({@link io.bloomguard.testsupport.redis.LostWrites}), a TCP proxy that can freeze traffic
 * ({@link io.bloomguard.testsupport.redis.FreezableTcpProxy}), a JUnit extension that starts one of them per
 * test class ({@link io.bloomguard.testsupport.redis.RedisServerExtension}), and the RedisBloom module ({@code BF.*},
 * {@code CF.*}) a server can load, found through {@code REDISBLOOM_MODULE}
 * ({@link io.bloomguard.testsupport.redis.RedisBloomModule}). No Docker, no mocks; every process is
 * a child of the JVM and dies with it.
 */
@NullMarked
package io.bloomguard.testsupport.redis;

import org.jspecify.annotations.NullMarked;
