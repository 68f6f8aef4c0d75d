package io.bloomguard.slice;

import io.bloomguard.autoconfigure.AutoConfigureBloomGuard;
import io.bloomguard.redis.RedisBloomFilter;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.data.redis.test.autoconfigure.DataRedisTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.time.Duration;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A {@code @DataRedisTest} slice with {@link AutoConfigureBloomGuard}: a {@code redis} filter in the slice's own
 * Redis guards a Spring Data Redis repository as it does in the application. Saved tokens are found; an absent
 * id is answered without reading the repository's hash.
 */
@DataRedisTest(properties = { "bloom-guard.filters.tokens.backend=redis",
        "bloom-guard.filters.tokens.expected-size=10000", "bloom-guard.filters.tokens.puts-only=true" })
@AutoConfigureBloomGuard
class DataRedisSliceIT {

    private static final Pattern HGETALL_CALLS = Pattern.compile("cmdstat_hgetall:calls=(\\d+)");

    private static RedisServerProcess redis;

    @Autowired
    private TokenRepository tokens;

    @Autowired
    @Qualifier("tokens")
    private NamedBloomFilter tokensFilter;

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry properties) {
        redis = RedisServerProcess.start();
        properties.add("spring.data.redis.host", redis::host);
        properties.add("spring.data.redis.port", redis::port);
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    @Test
    void theRedisFilterGuardsTheRepositoryInTheSlice() {
        assertThat(tokensFilter.backend()).isInstanceOf(RedisBloomFilter.class);
        await().atMost(Duration.ofSeconds(10)).until(tokensFilter::state, FilterState.READY::equals);

        tokens.save(new Token("t-1", "alice"));
        assertThat(tokens.findById("t-1")).map(Token::owner).hasValue("alice");

        long hashReads = hashReads();
        assertThat(tokens.findById("never-saved")).isEmpty();
        assertThat(hashReads()).isEqualTo(hashReads);
        assertThat(tokensFilter.stats().rejected()).isEqualTo(1);
    }

    private static long hashReads() {
        Matcher calls = HGETALL_CALLS.matcher(Objects.requireNonNull(redis.command("INFO", "commandstats")));
        return calls.find() ? Long.parseLong(calls.group(1)) : 0;
    }
}
