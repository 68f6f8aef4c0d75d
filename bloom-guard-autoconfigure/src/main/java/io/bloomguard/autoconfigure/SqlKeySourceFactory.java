package io.bloomguard.autoconfigure;

import io.bloomguard.preload.BloomKeySource;
import io.bloomguard.preload.SqlKeySource;
import io.bloomguard.registry.FilterSpec;
import org.springframework.beans.factory.ObjectProvider;

import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/** Makes the {@code preload.sql} key sources, over the application's {@code DataSource}. */
final class SqlKeySourceFactory {

    private final ObjectProvider<DataSource> dataSource;

    SqlKeySourceFactory(ObjectProvider<DataSource> dataSource) {
        this.dataSource = dataSource;
    }

    List<BloomKeySource> create(List<FilterSpec> specs) {
        List<BloomKeySource> sources = new ArrayList<>();
        for (FilterSpec spec : specs) {
            String sql = spec.lifecycle().preloadSql();
            if (sql == null) {
                continue;
            }
            DataSource ds = dataSource.getIfUnique();
            if (ds == null) {
                throw noDataSource(spec.name(), sql);
            }
            sources.add(new SqlKeySource(spec.name(), sql, ds));
        }
        return sources;
    }

    static InvalidBloomGuardPropertyException noDataSource(String filter, String sql) {
        return new InvalidBloomGuardPropertyException("bloom-guard.filters." + filter + ".preload.sql", sql,
                "preload.sql runs through the application's DataSource, and there is no single one; add"
                        + " spring-boot-starter-jdbc (or data-jpa) and configure spring.datasource, or declare a"
                        + " BloomKeySource bean instead (a ReactiveBloomKeySource over R2DBC's DatabaseClient in a"
                        + " reactive application)");
    }
}
