package io.bloomguard.testsupport.redis;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/**
 * The RedisBloom module the native kinds' tests run on: found through {@code REDISBLOOM_MODULE}, loaded into a real
 * server that then answers {@code BF.*} and {@code CF.*}, and, without it, those tests skipped with a message that
 * says what to set. The tests on the module are skipped themselves when it is not configured.
 */
@Timeout(60)
@ExtendWith(RedisServerExtension.class)
class RedisBloomModuleIT {

    @Test
    void aServerWithTheModuleAnswersBloomCommands(@WithRedisBloom RedisServerProcess redis) {
        assertThat(redis.command("BF.RESERVE", "bloom", "0.01", "1000")).isEqualTo("OK");
        assertThat(redis.command("BF.ADD", "bloom", "present")).isEqualTo("1");
        assertThat(redis.command("BF.EXISTS", "bloom", "present")).isEqualTo("1");
        assertThat(redis.command("BF.EXISTS", "bloom", "absent")).isEqualTo("0");
        // Why a native kind must check the key's existence with the answer: a missing filter reads as "absent".
        assertThat(redis.command("BF.EXISTS", "no-such-filter", "present")).isEqualTo("0");
        assertThat(redis.command("BF.INFO", "bloom", "CAPACITY")).isEqualTo("1000");
    }

    @Test
    void aServerWithTheModuleAnswersCuckooCommands(@WithRedisBloom RedisServerProcess redis) {
        assertThat(redis.command("CF.ADD", "cuckoo", "present")).isEqualTo("1");
        assertThat(redis.command("CF.EXISTS", "cuckoo", "present")).isEqualTo("1");
        assertThat(redis.command("CF.EXISTS", "cuckoo", "absent")).isEqualTo("0");
        assertThat(redis.command("CF.DEL", "cuckoo", "present")).isEqualTo("1");
        assertThat(redis.command("CF.EXISTS", "cuckoo", "present")).isEqualTo("0");
    }

    @Test
    void aRestartedServerLoadsTheModuleAgain(@WithRedisBloom RedisServerProcess redis) {
        redis.restart();
        assertThat(redis.command("MODULE", "LIST")).containsIgnoringCase("bf");
        assertThat(redis.command("BF.ADD", "after-restart", "key")).isEqualTo("1");
    }

    @Test
    void thePlainServerOfTheClassHasNoModule(RedisServerProcess plain, @WithRedisBloom RedisServerProcess withModule) {
        assertThat(plain).isNotSameAs(withModule);
        assertThatThrownBy(() -> plain.command("BF.EXISTS", "bloom", "key")).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("unknown command");
    }

    @Test
    void withoutAModuleTheTestsThatNeedOneAreSkippedSayingWhatToSet() {
        NeedsTheModule.started.clear();
        String previous = System.getProperty(RedisBloomModule.SYSTEM_PROPERTY);
        // The property wins over the environment variable, so this holds whether or not the build has a module.
        System.setProperty(RedisBloomModule.SYSTEM_PROPERTY, "/no/such/dir/redisbloom.so");
        try {
            List<Event> skipped = EngineTestKit.engine("junit-jupiter")
                .selectors(selectClass(NeedsTheModule.class))
                .execute()
                .containerEvents()
                .skipped()
                .list();
            assertThat(skipped).singleElement()
                .satisfies((event) -> assertThat(event.getPayload(String.class)).hasValueSatisfying(
                        (reason) -> assertThat(reason).contains("/no/such/dir/redisbloom.so does not exist",
                                "REDISBLOOM_MODULE", "native BF.*/CF.* kinds are skipped")));
            assertThat(NeedsTheModule.started).as("servers started").isEmpty();
            assertThatThrownBy(RedisServerProcess::startWithRedisBloom).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("REDISBLOOM_MODULE");
        }
        finally {
            if (previous == null) {
                System.clearProperty(RedisBloomModule.SYSTEM_PROPERTY);
            }
            else {
                System.setProperty(RedisBloomModule.SYSTEM_PROPERTY, previous);
            }
        }
    }

    @Test
    void aBlankSettingIsNoModuleAndARelativeOneIsMadeAbsolute() {
        assertThat(RedisBloomModule.path(null, null)).isEmpty();
        assertThat(RedisBloomModule.path(" ", "")).isEmpty();
        assertThat(RedisBloomModule.path("", "lib/redisbloom.so")).contains(Path.of("lib/redisbloom.so").toAbsolutePath());
        assertThat(RedisBloomModule.path("/a.so", "/b.so")).as("the property wins").contains(Path.of("/a.so"));
    }

    /** Run only through the test kit above (failsafe leaves nested classes out). */
    @ExtendWith(RedisServerExtension.class)
    static class NeedsTheModule {

        static final List<RedisServerProcess> started = new CopyOnWriteArrayList<>();

        @BeforeAll
        static void start(@WithRedisBloom RedisServerProcess redis) {
            started.add(redis);
        }

        @Test
        void answers(@WithRedisBloom RedisServerProcess redis) {
            assertThat(redis.command("BF.ADD", "bloom", "key")).isEqualTo("1");
        }

    }

}
