package io.bloomguard.redis;

import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.redis.port.SpringDataRedisPort;
import io.bloomguard.testsupport.BloomFilterContractTest;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

/**
 * The backend contract on a real {@code redis-server}, through Jedis and Spring Data Redis's connection API
 * ({@link SpringDataRedisPort}): what an application wired to Jedis gets.
 */
class JedisBloomFilterContractIT extends BloomFilterContractTest {

    private static RedisServerProcess server;
    private static JedisConnectionFactory jedis;
    private static RedisFilterBackend backend;

    @BeforeAll
    static void startRedis() {
        server = RedisServerProcess.start();
        jedis = new JedisConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", server.port()),
                JedisClientConfiguration.builder().usePooling().build());
        jedis.afterPropertiesSet();
        jedis.start();
        backend = new RedisFilterBackend(() -> new SpringDataRedisPort(jedis, 8), TestRedisBackend.CONTRACT);
    }

    @AfterAll
    static void stopRedis() {
        backend.close();
        jedis.destroy();
        server.close();
    }

    /**
     * A quarter of the keys: the local suite proves the layout at full size, the Lettuce one in Redis at half;
     * this one proves the adapter over Jedis.
     */
    @Override
    protected int scaleDown() {
        return 4;
    }

    @Override
    protected BloomFilter createFilter(FilterSizing sizing, int seed) {
        return ContractFilters.loadedHere(backend.create(ContractFilters.name("jedis"), sizing, seed, 1));
    }
}
