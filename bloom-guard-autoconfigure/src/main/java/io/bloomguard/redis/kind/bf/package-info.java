/**
 * The native Bloom filter kind ({@code redis.kind: native}): each generation is one filter of the server's own
 * ({@code BF.*}: RedisBloom, Redis 8, Valkey's bloom module), built inside Redis, and readable by any client with
 * {@code BF.EXISTS}. Its scripts read a key that is gone as "unknown", never as "absent".
 */
@NullMarked
package io.bloomguard.redis.kind.bf;

import org.jspecify.annotations.NullMarked;
