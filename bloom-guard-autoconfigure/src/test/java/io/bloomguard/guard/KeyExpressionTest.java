package io.bloomguard.guard;

import io.bloomguard.annotation.BloomGuarded;
import io.bloomguard.autoconfigure.BloomGuardAutoConfiguration;
import io.bloomguard.preload.FilterPreloader;
import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.registry.SkipReason;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** Key expressions on a running guard, past the calls after which SpEL compiles them. */
class KeyExpressionTest {

    private static final long PRESENT = 7;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, BloomGuardAutoConfiguration.class))
            .withPropertyValues("bloom-guard.filters.accounts.expected-size=1000")
            .withBean(AccountLookup.class);

    /**
     * SpEL compiles an expression for the classes its first calls saw; an argument of another class (here a
     * parameter typed by an interface) must still get its key checked, not go through unchecked.
     */
    @Test
    void aCompiledKeyExpressionKeepsGuardingWhenAnArgumentIsOfAnotherClass() {
        runner.run(context -> {
            context.getBean(FilterPreloader.class).preloadAll();
            NamedBloomFilter accounts = context.getBean(BloomFilterRegistry.class).get("accounts");
            accounts.put(PRESENT);
            AccountLookup lookup = context.getBean(AccountLookup.class);
            for (int call = 0; call < 600; call++) {
                long id = (call % 2 == 0) ? PRESENT : 1_000 + call;
                Account account = (call < 300) ? new Member(id) : new Guest(id);
                Optional<String> found = lookup.find(account);
                if (id == PRESENT) {
                    assertThat(found).as("call %d, present", call).contains("account " + id);
                }
                else {
                    assertThat(found).as("call %d, absent: rejected", call).isEmpty();
                }
            }
            assertThat(accounts.counters().skippedFor(SkipReason.NO_KEY)).as("calls whose key failed").isZero();
        });
    }

    public interface Account {

        long getId();
    }

    public static final class Member implements Account {

        private final long id;

        Member(long id) {
            this.id = id;
        }

        @Override
        public long getId() {
            return id;
        }
    }

    public static final class Guest implements Account {

        private final long id;

        Guest(long id) {
            this.id = id;
        }

        @Override
        public long getId() {
            return id;
        }
    }

    static class AccountLookup {

        @BloomGuarded(filter = "accounts", key = "#account.id")
        public Optional<String> find(Account account) {
            return Optional.of("account " + account.getId());
        }
    }
}
