package io.bloomguard.kotlin.app

import io.bloomguard.registry.BloomFilterRegistry
import io.bloomguard.registry.FilterState
import kotlinx.coroutines.flow.asFlow
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.reactive.awaitSingle
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.springframework.boot.builder.SpringApplicationBuilder
import org.springframework.context.ConfigurableApplicationContext
import java.time.Duration

/**
 * What a Kotlin application sees of the guard on its coroutine repository, whichever backend holds the filter:
 * an absent id costs no SQL and answers as "not found" does, an existing or just saved one is found.
 */
abstract class CoroutineGuardContract {

    private lateinit var app: ConfigurableApplicationContext
    private lateinit var users: UserRepository
    private lateinit var accounts: Accounts
    private lateinit var statements: StatementCount

    /** The backend's properties. */
    protected abstract fun properties(): Map<String, Any>

    @BeforeEach
    fun start() {
        app = SpringApplicationBuilder(UserApplication::class.java).properties(properties()).run()
        users = app.getBean(UserRepository::class.java)
        accounts = app.getBean(Accounts::class.java)
        statements = app.getBean(StatementCount::class.java)
        await().atMost(Duration.ofSeconds(10)).until { filter().state() == FilterState.READY }
    }

    @AfterEach
    fun close() {
        app.close()
    }

    @Test
    fun `an absent id runs no SQL and a suspend lookup answers null`() = runBlocking<Unit> {
        val before = statements.get()
        val rejectedBefore = filter().stats().rejected()

        assertThat(users.findById(ABSENT)).isNull()
        assertThat(users.existsById(ABSENT)).`as`("a non-null Boolean answers false").isFalse()

        assertThat(statements.get()).`as`("statements sent to the database").isEqualTo(before)
        assertThat(filter().stats().rejected()).isEqualTo(rejectedBefore + 2)
    }

    @Test
    fun `a guarded suspend method of a service answers null for an absent id without SQL, and finds an existing one`() =
        runBlocking<Unit> {
            val grace = users.findAll().toList().first { it.name == "grace" }
            val before = statements.get()

            assertThat(accounts.profile(ABSENT)).isNull()
            assertThat(statements.get()).isEqualTo(before)
            assertThat(accounts.profile(grace.id!!)).isEqualTo(grace)
        }

    @Test
    fun `an existing id returns its row`() = runBlocking<Unit> {
        val ada = users.findAll().toList().first { it.name == "ada" }

        assertThat(users.findById(ada.id!!)).isEqualTo(ada)
        assertThat(users.existsById(ada.id!!)).isTrue()
        assertThat(users.streamById(ada.id!!).toList()).containsExactly(ada)
    }

    @Test
    fun `a Flow lookup of an absent id is an empty Flow that runs no SQL`() = runBlocking<Unit> {
        val flow = users.streamById(ABSENT)
        val before = statements.get()

        assertThat(flow.toList()).isEmpty()
        assertThat(statements.get()).isEqualTo(before)
    }

    @Test
    fun `a user saved in a coroutine transaction is keyed before the commit and found right after`() = runBlocking<Unit> {
        val registered = accounts.register("alan")

        assertThat(registered.keyedBeforeCommit).`as`("the key was in while the transaction was open").isTrue()
        assertThat(users.findById(registered.user.id!!)).isEqualTo(registered.user)
        assertThat(users.streamById(registered.user.id!!).toList()).containsExactly(registered.user)
    }

    @Test
    fun `a user saved by the repository alone is found right after`() = runBlocking<Unit> {
        val saved = users.save(User(name = "barbara"))

        assertThat(users.findById(saved.id!!)).isEqualTo(saved)
    }

    @Test
    fun `users saved together, from a list or a Flow, are each found right after`() = runBlocking<Unit> {
        val fromList = users.saveAll((1..50).map { User(name = "list-$it") }).toList()
        val fromFlow = users.saveAll((1..50).map { User(name = "flow-$it") }.asFlow()).toList()

        assertThat(fromList + fromFlow).hasSize(100)
        assertThat(filter().trustedToReject()).`as`("no key lost: the filter still rejects").isTrue()
        for (user in fromList + fromFlow) {
            assertThat(users.findById(user.id!!)).`as`("user %s", user.name).isEqualTo(user)
        }
    }

    @Test
    fun `users saved together in a coroutine transaction are each keyed before the commit`() = runBlocking<Unit> {
        val saved = accounts.registerAll(listOf("alonzo", "haskell", "barbara"))

        assertThat(saved).hasSize(3).allSatisfy { (_, keyedBeforeCommit) -> assertThat(keyedBeforeCommit).isTrue() }
        for ((user) in saved) {
            assertThat(users.findById(user.id!!)).isEqualTo(user)
        }
    }

    @Test
    fun `a rolled back save leaves no row, and every existing id is still found`() = runBlocking<Unit> {
        var rolledBack = 0L
        assertThatThrownBy { runBlocking { accounts.registerThenFail("kurt") { rolledBack = it } } }
            .isInstanceOf(IllegalStateException::class.java)

        assertThat(rolledBack).isPositive()
        assertThat(users.findById(rolledBack)).`as`("the row was rolled back").isNull()
        for (user in users.findAll().toList()) {
            assertThat(users.findById(user.id!!)).`as`("user %s", user.name).isEqualTo(user)
        }
        val next = accounts.register("john")
        assertThat(users.findById(next.user.id!!)).isEqualTo(next.user)
    }

    /**
     * 1,000 ids of which the 10 users' exist: one query, binding the ids the filter says might exist. With 10 keys in
     * a filter sized for 10,000 at 1 %, an absent id passes with a probability near 1e-15, and the hashes' seed is
     * fixed; the test still compares with the filter's own answers.
     */
    @Test
    fun `a thousand ids of which ten exist make one query with the ids that might exist, as a Flow and as a Flux`() =
        runBlocking<Unit> {
            val existing = users.findAll().toList().map { it.id!! }
            assertThat(existing).hasSize(10)
            val asked = (0 until 1000).map { if (it % 100 == 0) existing[it / 100] else 5_000_000L + it }
            val answers = filter().mightContainAll(asked)
            val mightExist = asked.filterIndexed { i, _ -> answers[i] }
            assertThat(mightExist).containsAll(existing).hasSizeLessThanOrEqualTo(existing.size + 1)
            val reactiveUsers = app.getBean(ReactiveUserRepository::class.java)

            for (lookup in listOf<suspend () -> List<User>>(
                { users.findAllById(asked).toList() },
                { reactiveUsers.findAllById(asked).collectList().awaitSingle() })) {
                val before = statements.get()
                val bindsBefore = statements.binds()

                assertThat(lookup().map { it.id }).containsExactlyInAnyOrderElementsOf(existing)
                assertThat(statements.get() - before).`as`("queries").isEqualTo(1)
                assertThat(statements.binds() - bindsBefore).`as`("bound ids").isEqualTo(mightExist.size.toLong())
            }
        }

    @Test
    fun `a suspend lookup of many keys runs with only those that might exist, each keyed by its element key`() =
        runBlocking<Unit> {
            val ada = users.findAll().toList().first { it.name == "ada" }.id!!

            assertThat(accounts.idsCalledWith(100, listOf(ABSENT + 100, ada + 100))).containsExactly(ada)
            assertThat(accounts.idsCalledWith(100, listOf(ABSENT + 100))).`as`("none left: not run").isEmpty()
        }

    @Test
    fun `ids that all do not exist make no query`() = runBlocking<Unit> {
        val asked = (1..1000).map { 6_000_000L + it }
        assertThat(filter().mightContainAll(asked).toList()).containsOnly(false)
        val before = statements.get()

        assertThat(users.findAllById(asked).toList()).isEmpty()
        assertThat(app.getBean(ReactiveUserRepository::class.java).findAllById(asked).collectList().awaitSingle()).isEmpty()
        assertThat(statements.get()).isEqualTo(before)
    }

    private fun filter() = app.getBean(BloomFilterRegistry::class.java).get("users")

    companion object {
        const val ABSENT = 987_654_321L
    }
}
