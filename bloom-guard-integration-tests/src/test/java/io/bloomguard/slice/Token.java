package io.bloomguard.slice;

import org.springframework.data.annotation.Id;
import org.springframework.data.redis.core.RedisHash;

/** An API token stored in Redis as a hash, looked up by its id. */
@RedisHash("tokens")
public record Token(@Id String id, String owner) {
}
