package io.bloomguard.kotlin.keysource

import io.bloomguard.preload.FilterPreloader
import io.bloomguard.preload.ReactiveBloomKeySource
import io.bloomguard.registry.BloomFilterRegistry
import io.bloomguard.registry.FilterState
import io.r2dbc.h2.H2ConnectionConfiguration
import io.r2dbc.h2.H2ConnectionFactory
import io.r2dbc.h2.H2ConnectionOption
import io.r2dbc.spi.ConnectionFactory
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.reactive.asPublisher
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.springframework.boot.autoconfigure.SpringBootApplication
import org.springframework.boot.builder.SpringApplicationBuilder
import org.springframework.context.annotation.Bean
import org.springframework.r2dbc.core.DatabaseClient
import org.springframework.r2dbc.core.await
import org.springframework.r2dbc.core.flow
import java.util.UUID
import javax.sql.DataSource

/** A coroutine application's key source: a Flow of its ids over R2DBC, with no DataSource. */
class FlowKeySourceTest {

    @Test
    fun `a Flow of ids preloads the filter, and a rebuild collects it again`() = runBlocking<Unit> {
        SpringApplicationBuilder(FlowKeySourceApplication::class.java)
            .properties(mapOf<String, Any>("bloom-guard.filters.users.expected-size" to "1000")).run().use { app ->
            val users = app.getBean(BloomFilterRegistry::class.java).get("users")
            val db = app.getBean(DatabaseClient::class.java)
            val ids = db.sql("SELECT id FROM users").map { row -> row.get(0, Long::class.javaObjectType)!! }.flow().toList()

            assertThat(app.getBeanNamesForType(DataSource::class.java)).`as`("DataSource beans").isEmpty()
            assertThat(users.state()).isEqualTo(FilterState.READY)
            assertThat(ids).hasSize(10)
            ids.forEach { assertThat(users.mightContain(it)).`as`("user %d", it).isTrue() }
            assertThat(app.getBean(FilterPreloader::class.java).results().getValue("users").keys()).isEqualTo(10)

            db.sql("INSERT INTO users (id, name) VALUES (424242, 'added behind the application''s back')").await()
            assertThat(users.rebuild()).isEqualTo(11)
            assertThat(users.mightContain(424242L)).isTrue()
            assertThat(users.state()).isEqualTo(FilterState.READY)
        }
    }
}

@SpringBootApplication(proxyBeanMethods = false)
class FlowKeySourceApplication {

    /** A database of its own, which schema.sql and data.sql fill with ten users. */
    @Bean
    fun connectionFactory(): ConnectionFactory = H2ConnectionFactory(
        H2ConnectionConfiguration.builder().inMemory("flow-keys-" + UUID.randomUUID())
            .property(H2ConnectionOption.DB_CLOSE_DELAY, "-1").build()
    )

    @Bean
    fun userIds(db: DatabaseClient) = ReactiveBloomKeySource.of("users") { idsOf(db).asPublisher() }

    private fun idsOf(db: DatabaseClient): Flow<Long> =
        db.sql("SELECT id FROM users").map { row -> row.get(0, Long::class.javaObjectType)!! }.flow()
}
