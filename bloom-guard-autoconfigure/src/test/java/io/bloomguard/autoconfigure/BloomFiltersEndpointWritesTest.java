package io.bloomguard.autoconfigure;

import io.bloomguard.actuate.BloomFilterHealthIndicator;
import io.bloomguard.actuate.BloomFiltersEndpoint;
import io.bloomguard.actuate.BloomFiltersEndpoint.ModeDescriptor;
import io.bloomguard.actuate.BloomFiltersEndpoint.RebuildDescriptor;
import io.bloomguard.actuate.BloomFiltersEndpointWebExtension;
import io.bloomguard.actuate.BloomFiltersEndpointWebExtension.FailureDescriptor;
import io.bloomguard.annotation.BloomGuarded;
import io.bloomguard.preload.BloomKeySource;
import io.bloomguard.preload.FilterPreloader;
import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.GuardMode;
import io.bloomguard.registry.NamedBloomFilter;
import org.awaitility.Awaitility;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import java.security.Principal;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an operator does through the endpoint's writes during an incident: switch a filter's mode (the guard follows
 * at once, the log says who did it, the endpoint and health show it), and rebuild without holding the request open.
 * (That the writes are refused unless opened is proven over HTTP: {@code BloomFiltersEndpointAccessIT}.)
 */
@ExtendWith(OutputCaptureExtension.class)
class BloomFiltersEndpointWritesTest {

    /** Rebuilds of {@code users} wait here while it is set; the preload never does. */
    private static volatile @Nullable CountDownLatch rebuildGate;
    /** Rebuilds of {@code users} fail while it is set, as a key source whose database is gone. */
    private static volatile boolean keySourceGone;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, BloomGuardAutoConfiguration.class,
                    BloomGuardEndpointAutoConfiguration.class, BloomGuardHealthContributorAutoConfiguration.class))
            .withPropertyValues("management.endpoints.web.exposure.include=bloomfilters",
                    "bloom-guard.filters.users.expected-size=1000")
            .withBean("userIds", BloomKeySource.class, () -> BloomKeySource.of("users", () -> {
                awaitGate();
                if (keySourceGone) {
                    throw new IllegalStateException("the replica is gone");
                }
                return LongStream.rangeClosed(1, 400).boxed();
            }))
            .withBean(Users.class);

    @Test
    void aKeyTheGuardRejectsPassesInShadowAndOffAndIsRejectedAgainOnceBackToEnforce(CapturedOutput output) {
        runner.run(context -> {
            preload(context);
            Users users = context.getBean(Users.class);
            long absent = absentKey(filter(context));
            assertThat(users.findById(absent)).as("enforce: rejected").isEmpty();
            assertThat(users.calls()).hasValue(0);

            assertThat(switchTo(context, "shadow").getBody()).isEqualTo(new ModeDescriptor("shadow", "enforce",
                    "enforce"));
            assertThat(users.findById(absent)).as("shadow: the method runs").isPresent();
            assertThat(filter(context).stats().shadowRejections()).isEqualTo(1);

            switchTo(context, "off");
            assertThat(users.findById(absent)).as("off: the method runs").isPresent();
            assertThat(users.calls()).hasValue(2);

            assertThat(switchTo(context, "enforce").getBody()).isEqualTo(new ModeDescriptor("enforce", "off",
                    "enforce"));
            assertThat(users.findById(absent)).as("enforce again: rejected").isEmpty();
            assertThat(users.calls()).hasValue(2);
            assertThat(output).contains("Filter 'users' switched from mode enforce to shadow by the bloomfilters"
                    + " endpoint (principal 'alice')").contains("bloom-guard.filters.users.mode");
        });
    }

    /** Keys put while the guard is off are in the filter once it enforces again: no key that exists is rejected. */
    @Test
    void keysPutWhileOffAreThereWhenItEnforcesAgain() {
        runner.run(context -> {
            preload(context);
            NamedBloomFilter users = filter(context);
            switchTo(context, "off");
            long added = absentKey(users);
            users.put(added);
            switchTo(context, "enforce");

            assertThat(context.getBean(Users.class).findById(added)).isPresent();
        });
    }

    @Test
    void aSwitchedModeShowsInTheEndpointAndHealthBesideTheConfiguredOne() {
        runner.run(context -> {
            preload(context);
            switchTo(context, "off");
            BloomFiltersEndpoint endpoint = context.getBean(BloomFiltersEndpoint.class);

            assertThat(endpoint.filters().filters().get("users").mode()).isEqualTo("off");
            assertThat(endpoint.filter("users").mode()).isEqualTo("off");
            assertThat(endpoint.filter("users").spec().mode()).as("configured").isEqualTo("enforce");
            Health health = new BloomFilterHealthIndicator(filter(context)).health();
            assertThat(health.getStatus()).isEqualTo(BloomFilterHealthIndicator.DEGRADED);
            assertThat(health.getDetails()).containsEntry("mode", "off").containsEntry("configuredMode", "enforce");
            assertThat(health.getDetails().get("reasons").toString()).contains("switched from enforce to off")
                    .contains("calls are not checked");

            switchTo(context, "enforce");
            health = new BloomFilterHealthIndicator(filter(context)).health();
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails()).containsEntry("mode", "enforce").doesNotContainKey("configuredMode");
        });
    }

    @Test
    void anUnknownOrMissingModeIsA400SayingWhatIsAccepted() {
        runner.run(context -> {
            BloomFiltersEndpointWebExtension web = context.getBean(BloomFiltersEndpointWebExtension.class);

            WebEndpointResponse<Object> unknown = web.act("users", "mode", null, "loose", SecurityContext.NONE);
            assertThat(unknown.getStatus()).isEqualTo(400);
            assertThat(((FailureDescriptor) unknown.getBody()).message()).contains("enforce, shadow or off")
                    .contains("'loose'");
            assertThat(web.act("users", "mode", null, null, SecurityContext.NONE).getStatus()).isEqualTo(400);
            assertThat(filter(context).mode()).isEqualTo(GuardMode.ENFORCE);
        });
    }

    @Test
    void aRebuildAnswersAtOnceWithAHandleThatIsPolledUntilItSucceeds() {
        runner.run(context -> {
            preload(context);
            BloomFiltersEndpointWebExtension web = context.getBean(BloomFiltersEndpointWebExtension.class);
            BloomFiltersEndpoint endpoint = context.getBean(BloomFiltersEndpoint.class);
            CountDownLatch gate = new CountDownLatch(1);
            rebuildGate = gate;
            RebuildDescriptor started;
            try {
                WebEndpointResponse<Object> response = web.act("users", "rebuild", null, null, SecurityContext.NONE);

                assertThat(response.getStatus()).isEqualTo(202);
                started = (RebuildDescriptor) response.getBody();
                assertThat(started.state()).isEqualTo("running");
                assertThat(started.startedNow()).isTrue();
                assertThat(started.keys()).isNull();
                assertThat(endpoint.rebuild("users", "rebuilds", started.id()).state()).as("polled while the key"
                        + " source waits").isEqualTo("running");

                RebuildDescriptor again = (RebuildDescriptor) web.act("users", "rebuild", null, null,
                        SecurityContext.NONE).getBody();
                assertThat(again.id()).as("the running one, not a second").isEqualTo(started.id());
                assertThat(again.startedNow()).isFalse();
            }
            finally {
                gate.countDown();
            }
            RebuildDescriptor done = Awaitility.await().atMost(Duration.ofSeconds(20)).until(
                    () -> endpoint.rebuild("users", "rebuilds", started.id()),
                    rebuild -> !rebuild.state().equals("running"));
            assertThat(done.state()).isEqualTo("succeeded");
            assertThat(done.keys()).isEqualTo(400);
            assertThat(done.finished()).isNotNull();
            assertThat(done.error()).isNull();
            assertThat(filter(context).history().lastRebuild().keys()).isEqualTo(400);
            assertThat(endpoint.rebuild("users", "rebuilds", started.id() + "0")).as("no such rebuild").isNull();
            assertThat(endpoint.rebuild("skus", "rebuilds", started.id())).as("another filter's id").isNull();
            assertThat(endpoint.rebuild("users", "rebuild", started.id())).as("another path").isNull();
        });
    }

    @Test
    void aRebuildPolledAtAnotherInstanceIsNotFoundThereRatherThanMistakenForItsRebuild() {
        runner.run(first -> runner.run(second -> {
            preload(first);
            preload(second);
            BloomFiltersEndpoint one = first.getBean(BloomFiltersEndpoint.class);
            BloomFiltersEndpoint other = second.getBean(BloomFiltersEndpoint.class);
            RebuildDescriptor atOne = (RebuildDescriptor) one.act("users", "rebuild", null, null,
                    SecurityContext.NONE);
            RebuildDescriptor atOther = (RebuildDescriptor) other.act("users", "rebuild", null, null,
                    SecurityContext.NONE);

            assertThat(atOne.id()).isNotEqualTo(atOther.id());
            assertThat(other.rebuild("users", "rebuilds", atOne.id())).as("one's rebuild polled at the other")
                    .isNull();
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(
                    () -> one.rebuild("users", "rebuilds", atOne.id()).state(), state -> !state.equals("running"));
        }));
    }

    @Test
    void aRebuildThatFailsSaysWhyWhenPolled() {
        runner.run(context -> {
            preload(context);
            BloomFiltersEndpoint endpoint = context.getBean(BloomFiltersEndpoint.class);
            keySourceGone = true;
            RebuildDescriptor started = (RebuildDescriptor) endpoint.act("users", "rebuild", null, null,
                    SecurityContext.NONE);

            RebuildDescriptor done = Awaitility.await().atMost(Duration.ofSeconds(20)).until(
                    () -> endpoint.rebuild("users", "rebuilds", started.id()),
                    rebuild -> !rebuild.state().equals("running"));
            assertThat(done.state()).isEqualTo("failed");
            assertThat(done.error()).contains("the replica is gone");
            assertThat(done.keys()).isNull();
        });
    }

    @Test
    void startupSaysTheEndpointIsReadOnlyAndWhatOpensItsWrites(CapturedOutput output) {
        runner.run(context -> {
            assertThat(context).hasSingleBean(BloomFiltersEndpoint.class);
            assertThat(output).contains("The bloomfilters endpoint is read-only")
                    .contains("management.endpoint.bloomfilters.access=unrestricted");
        });
    }

    @Test
    void startupSaysWhenTheWritesAreOpen(CapturedOutput output) {
        // Upper case: the runner's environment lacks the application's lenient enum conversion (lower case is fine
        // in an application: BloomFiltersEndpointAccessIT).
        runner.withPropertyValues("management.endpoint.bloomfilters.access=UNRESTRICTED").run(context -> {
            assertThat(context).hasSingleBean(BloomFiltersEndpoint.class);
            assertThat(output).contains("The bloomfilters endpoint accepts writes")
                    .doesNotContain("The bloomfilters endpoint is read-only");
        });
    }

    private static WebEndpointResponse<Object> switchTo(AssertableApplicationContext context, String mode) {
        WebEndpointResponse<Object> response = context.getBean(BloomFiltersEndpointWebExtension.class)
                .act("users", "mode", null, mode, new Caller("alice"));
        assertThat(response.getStatus()).as("switch to %s", mode).isEqualTo(200);
        return response;
    }

    /** The first key from 1,000,000 up that the filter answers "absent" for (one in a hundred is a false positive). */
    private static long absentKey(NamedBloomFilter filter) {
        return LongStream.iterate(1_000_000, key -> key + 1).filter(key -> !filter.mightContain(key)).findFirst()
                .orElseThrow();
    }

    private static NamedBloomFilter filter(AssertableApplicationContext context) {
        return context.getBean(BloomFilterRegistry.class).get("users");
    }

    private static void preload(AssertableApplicationContext context) {
        rebuildGate = null;
        keySourceGone = false;
        context.getBean(FilterPreloader.class).preloadAll();
    }

    private static void awaitGate() {
        CountDownLatch gate = rebuildGate;
        if (gate != null) {
            try {
                assertThat(gate.await(30, TimeUnit.SECONDS)).as("the test opened the gate").isTrue();
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(ex);
            }
        }
    }

    /** A caller Spring Security would have authenticated. */
    private record Caller(String name) implements SecurityContext {

        @Override
        public Principal getPrincipal() {
            return () -> name;
        }

        @Override
        public boolean isUserInRole(String role) {
            return false;
        }
    }

    static class Users {

        private final AtomicInteger calls = new AtomicInteger();

        @BloomGuarded(filter = "users")
        public Optional<String> findById(long id) {
            calls.incrementAndGet();
            return Optional.of("user " + id);
        }

        AtomicInteger calls() {
            return calls;
        }
    }
}
