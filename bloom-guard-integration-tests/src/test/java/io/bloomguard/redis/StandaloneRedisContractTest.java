package io.bloomguard.redis;

import io.bloomguard.testsupport.BloomFilterContractTest;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The backend contract on one real {@code redis-server} per class, through the Lettuce backend {@link #redis}: a
 * subclass says which kind of filter ({@link ContractFilters} names and loads it).
 */
@ExtendWith(RedisServerExtension.class)
abstract class StandaloneRedisContractTest extends BloomFilterContractTest {

    static TestRedisBackend redis;

    @BeforeAll
    static void connect(RedisServerProcess server) {
        redis = TestRedisBackend.on(server, TestRedisBackend.CONTRACT);
    }

    @AfterAll
    static void disconnect() {
        redis.close();
    }
}
