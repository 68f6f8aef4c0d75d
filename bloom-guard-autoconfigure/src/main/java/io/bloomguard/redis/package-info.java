/**
 * The Redis backend's public face: filters whose bits live in Redis strings, shared by every instance, over plain
 * Redis or Redis Cluster, through the narrow {@link io.bloomguard.redis.port.RedisPort}; the work is in sub-packages
 * by job.
 */
@NullMarked
package io.bloomguard.redis;

import org.jspecify.annotations.NullMarked;
