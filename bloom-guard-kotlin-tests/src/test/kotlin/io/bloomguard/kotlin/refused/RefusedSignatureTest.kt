package io.bloomguard.kotlin.refused

import io.bloomguard.guard.InvalidBloomAnnotationException
import io.bloomguard.kotlin.refused.continuation.ContinuationKeyApplication
import io.bloomguard.kotlin.refused.nonnull.NonNullLookupApplication
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.junit.jupiter.api.Test
import org.springframework.boot.builder.SpringApplicationBuilder
import java.util.UUID

/** A guarded suspend function that cannot work as written stops startup, saying what to write instead. */
class RefusedSignatureTest {

    @Test
    fun `a guarded suspend lookup of a non-null entity is refused at startup`() {
        assertThatThrownBy { start(NonNullLookupApplication::class.java) }
            .isInstanceOfSatisfying(InvalidBloomAnnotationException::class.java) { refused ->
                assertThat(refused).hasMessageContaining("NonNullLookups.findByName")
                    .hasMessageContaining("suspend function returning the non-null type User")
                assertThat(refused.action()).startsWith("Declare the result nullable (User?)")
            }
    }

    @Test
    fun `a key expression cannot reach a suspend function's Continuation`() {
        assertThatThrownBy { start(ContinuationKeyApplication::class.java) }
            .isInstanceOfSatisfying(InvalidBloomAnnotationException::class.java) { refused ->
                assertThat(refused).hasMessageContaining("ContinuationKeys.findById")
                    .hasMessageContaining("names #p1, which is not a parameter of the method; parameters: id")
            }
    }

    private fun start(application: Class<*>) {
        val properties = mapOf<String, Any>(
            "spring.r2dbc.url" to "r2dbc:h2:mem:///refused-" + UUID.randomUUID(),
            "spring.sql.init.mode" to "never",
            "bloom-guard.filters.users.expected-size" to "1000",
        )
        SpringApplicationBuilder(application).properties(properties).run().close()
    }
}
