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

    fun get(): Long = count.get()

    /** [factory], whose connections count every statement they create. */
    fun counting(factory: ConnectionFactory): ConnectionFactory = CountingConnectionFactory(factory, count)

    private class CountingConnectionFactory(private val factory: ConnectionFactory, private val count: AtomicLong) :
        ConnectionFactory by factory {
        override fun create(): Publisher<out Connection> =
            Mono.from(factory.create()).map { CountingConnection(it, count) }
    }

    private class CountingConnection(private val connection: Connection, private val count: AtomicLong) :
        Connection by connection {
        override fun createStatement(sql: String): Statement {
            count.incrementAndGet()
            return connection.createStatement(sql)
        }
    }
}
