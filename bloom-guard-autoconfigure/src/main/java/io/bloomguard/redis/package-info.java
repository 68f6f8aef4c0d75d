/**
 * The Redis backend's public face: filters whose bits live in Redis strings, shared by every instance, over plain
 * Redis or Redis Cluster, through the narrow {@link io.bloomguard.redis.port.RedisPort}. Dependencies point one
 * way: this package assembles {@link io.bloomguard.redis.engine} (the work, the same for every kind) and registers
 * the kinds ({@link io.bloomguard.redis.kind} and one package each); both talk to Redis through the port.
 */
@NullMarked
package io.bloomguard.redis;

import org.jspecify.annotations.NullMarked;
