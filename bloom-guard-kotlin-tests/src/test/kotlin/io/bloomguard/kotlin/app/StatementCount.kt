package io.bloomguard.kotlin.app

import io.r2dbc.spi.Connection
import io.r2dbc.spi.ConnectionFactory
import io.r2dbc.spi.Statement
import org.reactivestreams.Publisher
import reactor.core.publisher.Mono
import java.util.concurrent.atomic.AtomicLong

/** Counts the SQL statements an application sends to its database, as a user would see them in a query log. */
class StatementCount {

    private val count = AtomicLong()
    private val binds = AtomicLong()

    fun get(): Long = count.get()

    /** The values bound to the statements so far: a query's parameters. */
    fun binds(): Long = binds.get()

    /** [factory], whose connections count every statement they create and every value bound to one. */
    fun counting(factory: ConnectionFactory): ConnectionFactory = CountingConnectionFactory(factory, this)

    private class CountingConnectionFactory(private val factory: ConnectionFactory, private val counts: StatementCount) :
        ConnectionFactory by factory {
        override fun create(): Publisher<out Connection> =
            Mono.from(factory.create()).map { CountingConnection(it, counts) }
    }

    private class CountingConnection(private val connection: Connection, private val counts: StatementCount) :
        Connection by connection {
        override fun createStatement(sql: String): Statement {
            counts.count.incrementAndGet()
            return CountingStatement(connection.createStatement(sql), counts.binds)
        }
    }

    /** A statement whose bound values are counted; its fluent methods answer the wrapper, as the driver's do itself. */
    private class CountingStatement(private val statement: Statement, private val binds: AtomicLong) :
        Statement by statement {
        override fun bind(index: Int, value: Any): Statement = apply { binds.incrementAndGet(); statement.bind(index, value) }
        override fun bind(name: String, value: Any): Statement = apply { binds.incrementAndGet(); statement.bind(name, value) }
        override fun bindNull(index: Int, type: Class<*>): Statement = apply { binds.incrementAndGet(); statement.bindNull(index, type) }
        override fun bindNull(name: String, type: Class<*>): Statement = apply { binds.incrementAndGet(); statement.bindNull(name, type) }
        override fun add(): Statement = apply { statement.add() }
        override fun returnGeneratedValues(vararg columns: String): Statement =
            apply { statement.returnGeneratedValues(*columns) }
        override fun fetchSize(rows: Int): Statement = apply { statement.fetchSize(rows) }
    }
}
