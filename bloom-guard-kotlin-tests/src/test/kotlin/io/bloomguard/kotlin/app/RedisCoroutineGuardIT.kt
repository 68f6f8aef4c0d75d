package io.bloomguard.kotlin.app

import io.bloomguard.testsupport.redis.RedisServerExtension
import io.bloomguard.testsupport.redis.RedisServerProcess
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.extension.ExtendWith
import java.util.UUID

/** The coroutine repository guarded by a `redis` filter, on a real redis-server. */
@ExtendWith(RedisServerExtension::class)
class RedisCoroutineGuardIT : CoroutineGuardContract() {

    override fun properties(): Map<String, Any> = mapOf(
        "bloom-guard.filters.users.backend" to "redis",
        "spring.data.redis.host" to "127.0.0.1",
        "spring.data.redis.port" to redis.port().toString(),
        // a filter of its own per application: each starts with a database of its own
        "bloom-guard.redis.key-prefix" to "kotlin-" + UUID.randomUUID().toString().substring(0, 8) + ":",
    )

    companion object {
        private lateinit var redis: RedisServerProcess

        @BeforeAll
        @JvmStatic
        fun rememberServer(server: RedisServerProcess) {
            redis = server
        }
    }
}
