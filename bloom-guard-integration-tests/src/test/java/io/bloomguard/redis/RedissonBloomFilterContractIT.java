package io.bloomguard.redis;

import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.redis.port.SpringDataRedisPort;
import io.bloomguard.testsupport.BloomFilterContractTest;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.spring.data.connection.RedissonConnectionFactory;

/**
 * The backend contract on a real {@code redis-server}, through Redisson's {@code RedisConnectionFactory} (what
 * {@code redisson-spring-boot-starter} gives an application) and Spring Data Redis's connection API.
 */
class RedissonBloomFilterContractIT extends BloomFilterContractTest {

    private static RedisServerProcess server;
    private static RedissonClient redisson;
    private static RedisFilterBackend backend;

    @BeforeAll
    static void startRedis() {
        server = RedisServerProcess.start();
        Config config = new Config();
        config.useSingleServer().setAddress("redis://127.0.0.1:" + server.port());
        redisson = Redisson.create(config);
        RedissonConnectionFactory factory = new RedissonConnectionFactory(redisson);
        backend = new RedisFilterBackend(() -> new SpringDataRedisPort(factory, 8), TestRedisBackend.CONTRACT);
    }

    @AfterAll
    static void stopRedis() {
        backend.close();
        redisson.shutdown();
        server.close();
    }

    /**
     * A quarter of the keys: the local suite proves the layout at full size, the Lettuce one in Redis at half;
     * this one proves the adapter over Redisson.
     */
    @Override
    protected int scaleDown() {
        return 4;
    }

    @Override
    protected BloomFilter createFilter(FilterSizing sizing, int seed) {
        return ContractFilters.loadedHere(backend.create(ContractFilters.name("redisson"), sizing, seed, 1));
    }
}
