package io.bloomguard.kotlin.app

import io.bloomguard.annotation.BloomGuarded
import io.bloomguard.annotation.BloomPut
import io.bloomguard.preload.ReactiveBloomKeySource
import io.bloomguard.registry.BloomFilterRegistry
import io.r2dbc.h2.H2ConnectionConfiguration
import io.r2dbc.h2.H2ConnectionFactory
import io.r2dbc.h2.H2ConnectionOption
import io.r2dbc.spi.ConnectionFactory
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.asFlow
import kotlinx.coroutines.flow.firstOrNull
import kotlinx.coroutines.flow.map
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.reactive.asPublisher
import org.springframework.boot.autoconfigure.SpringBootApplication
import org.springframework.context.annotation.Bean
import org.springframework.data.annotation.Id
import org.springframework.data.relational.core.mapping.Table
import org.springframework.data.repository.kotlin.CoroutineCrudRepository
import org.springframework.data.repository.reactive.ReactiveCrudRepository
import reactor.core.publisher.Flux
import org.springframework.stereotype.Service
import org.springframework.transaction.annotation.Transactional
import java.util.UUID

/** A Kotlin service over a coroutine repository of users, guarded by the filter `users` of their ids. */
@SpringBootApplication(proxyBeanMethods = false)
class UserApplication {

    @Bean
    fun statements() = StatementCount()

    /** A database of its own per application, whose statements are counted. */
    @Bean
    fun connectionFactory(statements: StatementCount): ConnectionFactory = statements.counting(
        H2ConnectionFactory(
            H2ConnectionConfiguration.builder().inMemory("users-" + UUID.randomUUID())
                .property(H2ConnectionOption.DB_CLOSE_DELAY, "-1").build()
        )
    )

    /** The ids that exist, a Flow from the repository itself, collected at startup and by every rebuild. */
    @Bean
    fun userIds(users: UserRepository): ReactiveBloomKeySource =
        ReactiveBloomKeySource.of("users") { users.findAll().map { it.id!! }.asPublisher() }
}

@Table("USERS") // H2 keeps unquoted names in upper case
data class User(@Id val id: Long? = null, val name: String)

interface UserRepository : CoroutineCrudRepository<User, Long> {

    @BloomGuarded(filter = "users")
    override suspend fun findById(id: Long): User?

    @BloomGuarded(filter = "users")
    override suspend fun existsById(id: Long): Boolean

    /** Many ids: the query runs with only those that might exist, or not at all. */
    @BloomGuarded(filter = "users")
    override fun findAllById(ids: Iterable<Long>): Flow<User>

    /** A derived query whose result is a Flow, guarded by the same key. */
    @BloomGuarded(filter = "users", key = "#id")
    fun streamById(id: Long): Flow<User>

    /** Also the put of the inherited saveAll (of an Iterable or a Flow), keyed as each saved user is delivered. */
    @BloomPut(filter = "users", key = "#result.id")
    override suspend fun <S : User> save(entity: S): S
}

/** The same users through a Reactor repository, as a Java service would use them. */
interface ReactiveUserRepository : ReactiveCrudRepository<User, Long> {

    @BloomGuarded(filter = "users")
    override fun findAllById(ids: Iterable<Long>): Flux<User>
}

/** Registers users in a reactive transaction (R2DBC), as a coroutine service does; open for its transactional proxy. */
@Service
open class Accounts(private val users: UserRepository, private val filters: BloomFilterRegistry) {

    /** A user saved, and whether the filter held its id while the transaction was still open. */
    data class Registered(val user: User, val keyedBeforeCommit: Boolean)

    @Transactional
    open suspend fun register(name: String): Registered {
        val saved = users.save(User(name = name))
        return Registered(saved, filters.get("users").mightContain(saved.id!!))
    }

    /** Users saved together through the repository's inherited saveAll, each with whether it was keyed before the commit. */
    @Transactional
    open suspend fun registerAll(names: List<String>): List<Registered> =
        users.saveAll(names.asFlow().map { User(name = it) })
            .map { Registered(it, filters.get("users").mightContain(it.id!!)) }.toList()

    /** A guarded suspend method of a class (its proxy is a subclass), with a key expression over its parameter. */
    @BloomGuarded(filter = "users", key = "#userId")
    open suspend fun profile(userId: Long): User? = users.findAll().firstOrNull { it.id == userId }

    /**
     * A suspend lookup of many ids whose keys are computed per element (`#e`, with another parameter): it answers
     * the ids it was called with.
     */
    @BloomGuarded(filter = "users", key = "#ids", elementKey = "#e - #offset")
    open suspend fun idsCalledWith(offset: Long, ids: List<Long>): List<Long> = ids.map { it - offset }

    /** Saves a user, then fails: the transaction rolls the row back. */
    @Transactional
    open suspend fun registerThenFail(name: String, saved: (Long) -> Unit) {
        saved(users.save(User(name = name)).id!!)
        throw IllegalStateException("registration of $name failed")
    }
}
