package io.bloomguard.kotlin.refused.nonnull

import io.bloomguard.annotation.BloomGuarded
import io.bloomguard.kotlin.app.User
import org.springframework.boot.autoconfigure.SpringBootApplication
import org.springframework.data.repository.kotlin.CoroutineCrudRepository

@SpringBootApplication(proxyBeanMethods = false)
class NonNullLookupApplication

interface NonNullLookups : CoroutineCrudRepository<User, Long> {

    /** A rejected call could only answer null, which a `User` cannot be. */
    @BloomGuarded(filter = "users")
    suspend fun findByName(name: String): User
}
