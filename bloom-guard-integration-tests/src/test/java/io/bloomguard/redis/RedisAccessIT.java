package io.bloomguard.redis;

import io.bloomguard.core.AddFailurePolicy;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.NearCopyMode;
import io.bloomguard.core.SharedBloomFilter.StartOutcome;
import io.bloomguard.core.SharedFilterStatus;
import io.bloomguard.redis.port.RedisAccessDeniedException;
import io.bloomguard.redis.port.RedisAcl;
import io.bloomguard.redis.port.RedisUnavailableException;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * What a user sees when Redis refuses bloom-guard's user: the ACL docs/redis.md documents is exactly enough, and a
 * user lacking any one command, the keys, or the right password is told so by name when the filter starts, rather
 * than finding the filter silently passing every call through.
 */
@Timeout(120)
@ExtendWith(OutputCaptureExtension.class)
@ExtendWith(RedisServerExtension.class)
class RedisAccessIT {

    private static final FilterSizing SIZING = FilterSizing.of(20_000, 0.01);

    private static final String USER = "bloom";

    private static final String PASSWORD = "s3cret";

    private static final RedisAcl ACL = new RedisAcl(TestRedisBackend.FAST.keyPrefix());

    /** Redis commands a client sends to connect and to describe itself, which any user may run. */
    private static final Set<String> CONNECTION_COMMANDS = Set.of("hello", "auth", "client", "ping", "select",
            "command");

    static final List<String> COMMANDS = RedisAcl.COMMANDS;

    private static RedisServerProcess server;

    @BeforeAll
    static void rememberServer(RedisServerProcess redis) {
        server = redis;
    }

    /** Every case starts on a server that has no script cached: the first script of a filter needs EVAL. */
    @BeforeEach
    void noScriptsCached() {
        server.command("SCRIPT", "FLUSH");
    }

    @Test
    void aUserWithExactlyTheDocumentedAclLoadsChecksAddsAndRebuilds() {
        grant(ACL.rules());
        server.command("CONFIG", "RESETSTAT");
        try (TestRedisBackend first = TestRedisBackend.as(server, USER, PASSWORD, TestRedisBackend.FAST);
                TestRedisBackend second = TestRedisBackend.as(server, USER, PASSWORD, TestRedisBackend.FAST)) {
            RedisBloomFilter loader = first.backend.create("exact", SIZING, 1, 1);
            RedisBloomFilter follower = second.backend.create("exact", SIZING, 2, 1);
            assertThat(loader.start(RecordingKeyFeed.of(longs(0, 1000)))).isEqualTo(StartOutcome.LOADED_HERE);
            assertThat(follower.start(RecordingKeyFeed.of(longs(0, 1000)))).isEqualTo(StartOutcome.ALREADY_LOADED);
            assertThat(follower.status()).isEqualTo(SharedFilterStatus.READY);

            assertThat(follower.mightContain(500L)).isTrue();
            assertThat(follower.mightContain(987_654_321L)).isFalse();
            assertThat(loader.put(5000L)).isTrue();
            assertThat(follower.mightContainAll(List.of(5000L, 1L))).containsExactly(true, true);
            assertThat(follower.approximateElementCount()).isBetween(980L, 1020L);

            assertThat(loader.rebuild()).isEqualTo(1000L);
            follower.markIncomplete("a key lost, as a failed key expression would");
            // Either instance may rebuild it (both have the key source); each sees the end at its next refresh.
            await("rebuilt after the stale mark").atMost(Duration.ofSeconds(15))
                    .until(() -> {
                        follower.refresh();
                        loader.refresh();
                        return follower.status() == SharedFilterStatus.READY
                                && loader.status() == SharedFilterStatus.READY && Integer.parseInt(
                                        server.command("HGET", "bloom-guard:{exact}:meta", "generation")) >= 3;
                    });
            assertThat(loader.exportSnapshot().words()).isNotEmpty();
            assertThat(loader.status()).isEqualTo(SharedFilterStatus.READY);
        }
        assertThat(commandsRun()).as("what the filters ran is all in the documented list")
                .isSubsetOf(COMMANDS);
    }

    /**
     * A filter with an ordered near copy, under the documented ACL and the channel rules the docs add for it: it goes
     * in step, and its adds (which then publish what they set) are allowed.
     */
    @Test
    void aUserWithTheDocumentedAclAndChannelRulesRunsAnOrderedNearCopy() {
        grant(ACL.rules() + " &" + TestRedisBackend.FAST.keyPrefix() + "* +publish +subscribe +ping");
        server.command("CONFIG", "RESETSTAT");
        try (TestRedisBackend first = TestRedisBackend.as(server, USER, PASSWORD, TestRedisBackend.FAST);
                TestRedisBackend second = TestRedisBackend.as(server, USER, PASSWORD, TestRedisBackend.FAST)) {
            RedisBloomFilter writer = first.backend.create("ordered-acl", SIZING, 1, 1, AddFailurePolicy.BUFFER,
                    NearCopyMode.ORDERED);
            RedisBloomFilter reader = second.backend.create("ordered-acl", SIZING, 2, 1, AddFailurePolicy.BUFFER,
                    NearCopyMode.ORDERED);
            assertThat(writer.start(RecordingKeyFeed.of(longs(0, 100)))).isEqualTo(StartOutcome.LOADED_HERE);
            assertThat(reader.start(RecordingKeyFeed.of(longs(0, 100)))).isEqualTo(StartOutcome.ALREADY_LOADED);
            await("both near copies in step").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(10))
                    .until(() -> writer.details().nearCopy().absentKeys().equals("barrier")
                            && reader.details().nearCopy().absentKeys().equals("barrier"));

            assertThat(writer.put(5000L)).isTrue();
            assertThat(writer.pendingAdds()).as("the add went through, publishing").isZero();
            assertThat(reader.mightContain(5000L)).isTrue();
            assertThat(reader.mightContain(987_654_321L)).isFalse();
            assertThat(reader.accessDenied()).isNull();
            assertThat(writer.accessDenied()).isNull();
        }
    }

    @ParameterizedTest(name = "without {0}")
    @FieldSource("COMMANDS")
    void aUserMissingOneCommandIsRefusedAtStartNamingIt(String missing) {
        grant(ACL.rules().replace(" +" + missing + " ", " ").replaceAll(" \\+" + missing + "$", ""));
        try (TestRedisBackend instance = TestRedisBackend.as(server, USER, PASSWORD, TestRedisBackend.FAST)) {
            // Only a counting filter sends BITFIELD, and only it is refused without it.
            RedisBloomFilter filter = RedisAcl.COUNTING_ONLY.contains(missing)
                    ? instance.backend.createCounting("without-" + missing, SIZING, 1, 1)
                    : instance.backend.create("without-" + missing, SIZING, 1, 1);
            assertThat(filter.start(RecordingKeyFeed.of(longs(0, 100)))).isEqualTo(StartOutcome.ACCESS_DENIED);
            assertThat(filter.status()).isEqualTo(SharedFilterStatus.ACCESS_DENIED);
            RedisAccessDeniedException refused = filter.accessDenied();
            assertThat(refused).isNotNull();
            assertThat(refused.code()).isEqualTo("NOPERM");
            assertThat(refused.denied()).containsExactly(missing.toUpperCase(Locale.ROOT));
            assertThat(refused.getMessage()).contains(missing.toUpperCase(Locale.ROOT));
            assertThat(refused.action()).contains(ACL.rules()).contains("+" + missing + ")");
            assertThat(filter.statusReason()).contains(missing.toUpperCase(Locale.ROOT));

            assertThatThrownBy(() -> filter.put(1L)).as("an add is refused, not kept for a replay that cannot come")
                    .isInstanceOf(RedisAccessDeniedException.class);
            assertThat(filter.pendingAdds()).isZero();
            assertThat(filter.trustedToReject()).isFalse();
        }
    }

    /** An ACL written before counting filters existed, without BITFIELD, still serves plain filters. */
    @Test
    void aPlainFilterNeedsNoBitfield() {
        grant(ACL.rules().replace(" +bitfield ", " "));
        try (TestRedisBackend instance = TestRedisBackend.as(server, USER, PASSWORD, TestRedisBackend.FAST)) {
            RedisBloomFilter filter = instance.backend.create("plain-without-bitfield", SIZING, 1, 1);
            assertThat(filter.start(RecordingKeyFeed.of(longs(0, 100)))).isEqualTo(StartOutcome.LOADED_HERE);
            assertThat(filter.put(5000L)).isTrue();
            assertThat(filter.mightContain(5000L)).isTrue();
            assertThat(filter.mightContain(987_654_321L)).isFalse();
            assertThat(filter.status()).isEqualTo(SharedFilterStatus.READY);
        }
    }

    @Test
    void aUserLimitedToOtherKeysIsRefusedNamingTheKeyPattern() {
        grant(ACL.rules().replace(ACL.keyPattern(), "~other:*"));
        try (TestRedisBackend instance = TestRedisBackend.as(server, USER, PASSWORD, TestRedisBackend.FAST)) {
            RedisBloomFilter filter = instance.backend.create("other-keys", SIZING, 1, 1);
            assertThat(filter.start(RecordingKeyFeed.of(longs(0, 100)))).isEqualTo(StartOutcome.ACCESS_DENIED);
            assertThat(filter.accessDenied().denied()).containsExactly("keys");
            assertThat(filter.accessDenied().getMessage()).contains("the keys ~bloom-guard:*");
        }
    }

    @Test
    void aWrongPasswordIsRefusedAsWrongpass() {
        grant(ACL.rules());
        try (TestRedisBackend instance = TestRedisBackend.as(server, USER, "not-the-password", TestRedisBackend.FAST)) {
            RedisBloomFilter filter = instance.backend.create("wrong-password", SIZING, 1, 1);
            assertThat(filter.start(RecordingKeyFeed.of(longs(0, 100)))).isEqualTo(StartOutcome.ACCESS_DENIED);
            assertThat(filter.accessDenied().code()).isEqualTo("WRONGPASS");
            assertThat(filter.accessDenied().action()).contains("spring.data.redis.password");
        }
    }

    @Test
    void noPasswordForARedisThatRequiresOneIsRefusedAsNoauth(CapturedOutput output) {
        try (RedisServerProcess guarded = RedisServerProcess.start()) {
            guarded.command("CONFIG", "SET", "requirepass", PASSWORD); // the harness cannot talk to it after this
            try (TestRedisBackend instance = TestRedisBackend.on(guarded, TestRedisBackend.FAST)) {
                RedisBloomFilter filter = instance.backend.create("no-password", SIZING, 1, 1);
                assertThat(filter.start(RecordingKeyFeed.of(longs(0, 100)))).isEqualTo(StartOutcome.ACCESS_DENIED);
                assertThat(filter.status()).isEqualTo(SharedFilterStatus.ACCESS_DENIED);
                assertThat(filter.accessDenied().code()).isEqualTo("NOAUTH");
                assertThat(filter.accessDenied().action()).contains("set spring.data.redis.password");
                assertThatThrownBy(() -> filter.put(1L)).isInstanceOf(RedisAccessDeniedException.class);
            }
            assertThat(errorLines(output, "Filter 'no-password'")).hasSize(1).allMatch(line -> line.contains("NOAUTH"));
        }
    }

    /**
     * The ACL changes under a running application: the first check Redis refuses makes the filter
     * {@code ACCESS_DENIED}, logged once with what to fix (and no more checks are sent); once the command is allowed
     * again, the filter finds it out by itself and is trusted again.
     */
    @Test
    void aCommandRefusedWhileRunningIsLoggedOnceAndTheFilterRecoversOnceItIsAllowed(CapturedOutput output) {
        grant(ACL.rules());
        try (TestRedisBackend instance = TestRedisBackend.as(server, USER, PASSWORD, TestRedisBackend.FAST)) {
            RedisBloomFilter filter = instance.backend.create("revoked", SIZING, 1, 1);
            assertThat(filter.start(RecordingKeyFeed.of(longs(0, 1000)))).isEqualTo(StartOutcome.LOADED_HERE);
            assertThat(filter.trustedToReject()).isTrue();

            server.command("ACL", "SETUSER", USER, "-getrange");
            int sent = 0;
            for (long key = 0; key < 500; key++) { // as the guard does: only a trusted filter is asked
                if (filter.trustedToReject()) {
                    sent++;
                    long checked = key;
                    assertThatThrownBy(() -> filter.mightContain(checked))
                            .isInstanceOf(RedisAccessDeniedException.class);
                }
            }
            assertThat(sent).as("checks sent once the refusal was known").isEqualTo(1);
            assertThat(filter.status()).isEqualTo(SharedFilterStatus.ACCESS_DENIED);
            assertThat(filter.accessDenied().denied()).containsExactly("GETRANGE");
            assertThatThrownBy(() -> filter.put(5000L)).isInstanceOf(RedisAccessDeniedException.class);
            assertThat(errorLines(output, "Filter 'revoked'")).hasSize(1)
                    .allMatch(line -> line.contains("GETRANGE") && line.contains("+getrange"));

            server.command("ACL", "SETUSER", USER, "+getrange");
            await("trusted again once GETRANGE is allowed").atMost(Duration.ofSeconds(10))
                    .until(() -> filter.status() == SharedFilterStatus.READY);
            // The checks' breaker, opened by the refusal, lets one through after breaker-window.
            await("rejecting again").atMost(Duration.ofSeconds(5)).ignoreExceptionsInstanceOf(
                    RedisUnavailableException.class).until(() -> !filter.mightContain(987_654_321L));
            assertThat(output.getOut().lines().filter(line -> line.contains("Filter 'revoked'")
                    && line.contains("now allows every command"))).hasSize(1);
        }
    }

    private static void grant(String rules) {
        List<String> command = new ArrayList<>(List.of("ACL", "SETUSER", USER, "reset", "on", ">" + PASSWORD));
        command.addAll(Arrays.asList(rules.split(" ")));
        server.command(command.toArray(String[]::new));
    }

    /** Commands Redis ran since the last {@code CONFIG RESETSTAT}, from scripts too, but for connection ones. */
    private static Set<String> commandsRun() {
        Set<String> run = new TreeSet<>();
        for (String line : server.command("INFO", "commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_")) {
                String command = line.substring("cmdstat_".length(), line.indexOf(':')).split("\\|")[0];
                run.add(command);
            }
        }
        run.removeAll(CONNECTION_COMMANDS);
        run.removeAll(Set.of("acl", "config", "info")); // the test's own, through the harness
        return run;
    }

    static List<String> errorLines(CapturedOutput output, String about) {
        return output.getOut().lines().filter(line -> line.contains(" ERROR ") && line.contains(about))
                .collect(Collectors.toList());
    }

    private static List<Object> longs(long from, long to) {
        return LongStream.range(from, to).boxed().collect(Collectors.toList());
    }
}
