package io.bloomguard.redis;

import io.bloomguard.testapp.TestApplication;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.support.PropertiesLoaderUtils;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Instances of the test application (Spring contexts over one in-memory database and one Redis key prefix, as the
 * instances of one service are), for tests of what one instance does to another. A new one per test; close it after.
 *
 * <p>Usage: {@code ConfigurableApplicationContext first = apps.start(redis, true, Map.of(...));}
 */
final class GuardedApplications implements AutoCloseable {

    private final String database;
    private final String keyPrefix;
    private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

    /** {@code name} names the database, {@code prefixStem} starts the key prefix. */
    GuardedApplications(String name, String prefixStem) {
        String id = UUID.randomUUID().toString();
        this.database = "jdbc:h2:mem:" + name + "-" + id + ";DB_CLOSE_DELAY=-1";
        this.keyPrefix = prefixStem + "-" + id.substring(0, 8) + ":";
    }

    String keyPrefix() {
        return keyPrefix;
    }

    /**
     * Starts an instance on {@code redis}: the test application's properties, this database (created and seeded by
     * {@code initializeDatabase}) and key prefix, then {@code properties}.
     */
    ConfigurableApplicationContext start(RedisServerProcess redis, boolean initializeDatabase,
            Map<String, String> properties) {
        return start(Map.of("spring.data.redis.host", "127.0.0.1", "spring.data.redis.port",
                Integer.toString(redis.port())), initializeDatabase, properties);
    }

    /**
     * Starts an instance as {@link #start(RedisServerProcess, boolean, Map)} does, on the Redis that {@code redis}
     * names: {@code spring.data.redis.*} properties, such as {@code sentinel.master} and {@code sentinel.nodes}.
     */
    ConfigurableApplicationContext start(Map<String, String> redis, boolean initializeDatabase,
            Map<String, String> properties) {
        return start(redis, initializeDatabase, properties, context -> { });
    }

    /**
     * Starts an instance as {@link #start(RedisServerProcess, boolean, Map)} does, with {@code initializer} run on its
     * context before it is refreshed (to register a bean of the test's own, say).
     */
    ConfigurableApplicationContext start(RedisServerProcess redis, boolean initializeDatabase,
            Map<String, String> properties, ApplicationContextInitializer<ConfigurableApplicationContext> initializer) {
        return start(Map.of("spring.data.redis.host", "127.0.0.1", "spring.data.redis.port",
                Integer.toString(redis.port())), initializeDatabase, properties, initializer);
    }

    private ConfigurableApplicationContext start(Map<String, String> redis, boolean initializeDatabase,
            Map<String, String> properties, ApplicationContextInitializer<ConfigurableApplicationContext> initializer) {
        Map<String, Object> all = new HashMap<>();
        try {
            PropertiesLoaderUtils.loadProperties(new ClassPathResource("testapp.properties"))
                    .forEach((key, value) -> all.put((String) key, value));
        }
        catch (IOException ex) {
            throw new IllegalStateException(ex);
        }
        all.put("spring.datasource.url", database);
        all.put("spring.sql.init.mode", initializeDatabase ? "always" : "never");
        all.putAll(redis);
        all.put("bloom-guard.redis.key-prefix", keyPrefix);
        all.putAll(properties);
        ConfigurableApplicationContext context = new SpringApplicationBuilder(TestApplication.class).properties(all)
                .initializers(initializer).run();
        contexts.add(context);
        return context;
    }

    @Override
    public void close() {
        contexts.forEach(ConfigurableApplicationContext::close);
    }
}
