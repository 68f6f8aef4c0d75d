package io.bloomguard.kotlin.refused.continuation

import io.bloomguard.annotation.BloomGuarded
import io.bloomguard.kotlin.app.User
import org.springframework.boot.autoconfigure.SpringBootApplication
import org.springframework.data.repository.kotlin.CoroutineCrudRepository

@SpringBootApplication(proxyBeanMethods = false)
class ContinuationKeyApplication

interface ContinuationKeys : CoroutineCrudRepository<User, Long> {

    /** `#p1` is the Continuation in the bytecode, and no parameter of the Kotlin declaration. */
    @BloomGuarded(filter = "users", key = "#p1")
    override suspend fun findById(id: Long): User?
}
