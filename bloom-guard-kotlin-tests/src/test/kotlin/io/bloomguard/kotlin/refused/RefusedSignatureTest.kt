package io.bloomguard.kotlin.refused

import io.bloomguard.annotation.BloomGuarded
import io.bloomguard.guard.InvalidBloomAnnotationException
import io.bloomguard.kotlin.app.User
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.junit.jupiter.api.Test
import org.springframework.boot.autoconfigure.SpringBootApplication
import org.springframework.boot.builder.SpringApplicationBuilder
import org.springframework.data.repository.kotlin.CoroutineCrudRepository
import java.util.UUID

/** A guarded suspend lookup that a rejection could not answer stops startup, saying what to declare instead. */
class RefusedSignatureTest {

    @Test
    fun `a guarded suspend lookup of a non-null entity is refused at startup`() {
        val properties = mapOf<String, Any>(
            "spring.r2dbc.url" to "r2dbc:h2:mem:///refused-" + UUID.randomUUID(),
            "spring.sql.init.mode" to "never",
            "bloom-guard.filters.users.expected-size" to "1000",
        )

        assertThatThrownBy { SpringApplicationBuilder(RefusingApplication::class.java).properties(properties).run().close() }
            .isInstanceOfSatisfying(InvalidBloomAnnotationException::class.java) { refused ->
                assertThat(refused).hasMessageContaining("NonNullLookups.findByName")
                    .hasMessageContaining("suspend function returning the non-null type User")
                assertThat(refused.action()).startsWith("Declare the result nullable (User?)")
            }
    }
}

@SpringBootApplication(proxyBeanMethods = false)
class RefusingApplication

interface NonNullLookups : CoroutineCrudRepository<User, Long> {

    /** A rejected call could only answer null, which a `User` cannot be. */
    @BloomGuarded(filter = "users")
    suspend fun findByName(name: String): User
}
