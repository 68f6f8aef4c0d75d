package io.bloomguard.sample;

import jakarta.persistence.EntityManagerFactory;
import org.hibernate.SessionFactory;
import org.hibernate.stat.Statistics;
import org.springframework.stereotype.Component;

/**
 * How many JDBC statements Hibernate has prepared since startup: the number of database round trips the
 * repositories made. Needs {@code hibernate.generate_statistics: true}. Queries run outside Hibernate (the
 * {@code preload.sql} of the users filter, through JDBC) are not counted.
 */
@Component
public class DatabaseStatementCounter {

    private final Statistics statistics;

    public DatabaseStatementCounter(EntityManagerFactory entityManagerFactory) {
        this.statistics = entityManagerFactory.unwrap(SessionFactory.class).getStatistics();
    }

    public long statementsSoFar() {
        return statistics.getPrepareStatementCount();
    }
}
