package io.bloomguard.guard;

import io.bloomguard.annotation.BloomGuarded;
import io.bloomguard.autoconfigure.BloomGuardAutoConfiguration;
import io.bloomguard.preload.FilterPreloader;
import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.FilterStats;
import io.bloomguard.registry.NamedBloomFilter;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @BloomGuarded} on a method whose key is a collection or array: the method runs with only the elements that
 * might exist, in a collection of the same kind, or not at all. The filters hold the ids 1 to 10 (and the SKUs
 * {@code t1:a}, {@code t1:b}); every absent id used here is one a 1 % filter of 1,000 keys answers "absent" for, as
 * the tests check before relying on it.
 */
class PrunedLookupTest {

    private static final List<Long> PRESENT = LongStream.rangeClosed(1, 10).boxed().toList();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, BloomGuardAutoConfiguration.class))
            .withPropertyValues("bloom-guard.filters.users.expected-size=1000",
                    "bloom-guard.filters.skus.expected-size=1000",
                    "bloom-guard.filters.watched.expected-size=1000", "bloom-guard.filters.watched.mode=shadow")
            .withBean(Users.class);

    @Test
    void theMethodRunsWithOnlyTheKeysThatMightExistInOrderWithTheirDuplicates() {
        run((users, registry) -> {
            List<Long> asked = List.of(3L, 5_001L, 7L, 3L, 5_002L, 5_001L, 10L);
            assertAbsent(registry.get("users"), 5_001L, 5_002L);
            assertThat(users.findAllById(asked)).containsExactly("user 3", "user 7", "user 3", "user 10");
            assertThat(users.received()).isInstanceOf(List.class).isEqualTo(List.of(3L, 7L, 3L, 10L));
            FilterStats stats = registry.get("users").stats();
            assertThat(stats.passed()).as("keys that passed").isEqualTo(4);
            assertThat(stats.rejected()).as("keys dropped").isEqualTo(3);
        });
    }

    @Test
    void withNoKeyLeftTheCallAnswersEmptyWithoutRunning() {
        run((users, registry) -> {
            assertAbsent(registry.get("users"), 5_001L, 5_002L);
            assertThat(users.findAllById(List.of(5_001L, 5_002L))).isEmpty();
            assertThat(users.calls()).as("the method never ran").hasValue(0);
            assertThat(users.findAllReactively(List.of(5_001L)).collectList().block()).isEmpty();
            assertThat(users.countReactively(new Long[] { 5_002L }).block()).as("an empty Mono").isNull();
            assertThat(users.calls()).as("the reactive methods never ran either").hasValue(0);
        });
    }

    @Test
    void aCallWithNothingToPruneRunsAsItIs() {
        run((users, registry) -> {
            List<Long> asked = List.of(1L, 2L);
            assertThat(users.findAllById(asked)).containsExactly("user 1", "user 2");
            assertThat(users.received()).as("the caller's own list").isSameAs(asked);
            assertThat(users.findAllById(List.of())).isEmpty();
            assertThat(users.calls()).as("an empty batch runs too").hasValue(2);
        });
    }

    @Test
    void nullElementsAreKeptForTheMethodToAnswer() {
        run((users, registry) -> {
            assertAbsent(registry.get("users"), 5_001L);
            assertThat(users.findAllById(Arrays.asList(null, 5_001L, 4L))).containsExactly("user null", "user 4");
        });
    }

    @Test
    void thePrunedArgumentIsOfTheCallersKind() {
        run((users, registry) -> {
            assertAbsent(registry.get("users"), 5_001L, 5_002L);
            users.findAllIn(new LinkedHashSet<>(List.of(9L, 5_001L, 2L)));
            assertThat(users.received()).isInstanceOf(LinkedHashSet.class);
            assertThat(new ArrayList<>((Collection<?>) users.received())).isEqualTo(List.of(9L, 2L));

            TreeSet<Long> descending = new TreeSet<>(Comparator.reverseOrder());
            descending.addAll(List.of(2L, 5_002L, 9L));
            users.findAllIn(descending);
            assertThat(users.received()).isInstanceOf(TreeSet.class);
            assertThat(new ArrayList<>((Collection<?>) users.received())).as("the comparator kept").isEqualTo(List.of(9L, 2L));

            assertThat(users.findAllOf(new long[] { 5_001L, 6L, 8L })).containsExactly("user 6", "user 8");
            assertThat(users.received()).isEqualTo(new long[] { 6L, 8L });
        });
    }

    @Test
    void anElementKeyComputesEachElementsKeyWithTheOtherParameters() {
        run((users, registry) -> {
            NamedBloomFilter skus = registry.get("skus");
            skus.put("t1:a");
            skus.put("t1:b");
            assertAbsent(skus, "t1:zz", "t2:a");
            assertThat(users.findSkus("t1", List.of("a", "zz", "b"))).containsExactly("t1:a", "t1:b");
            assertThat(users.findSkus("t2", List.of("a", "b"))).as("t2:a and t2:b are not there").isEmpty();
            assertThat(users.findBySkuRefs(List.of(new SkuRef("t1", "a"), new SkuRef("t2", "a"), new SkuRef("t1", "b"))))
                    .containsExactly("t1:a", "t1:b");
        });
    }

    @Test
    void aReactiveMethodIsCalledWithOnlyTheKeysThatMightExistWhenSubscribed() {
        run((users, registry) -> {
            assertAbsent(registry.get("users"), 5_001L);
            Flux<String> found = users.findAllReactively(List.of(5_001L, 2L, 11L));
            assertThat(users.calls()).as("not before subscription").hasValue(0);
            registry.get("users").put(11L);
            assertThat(found.collectList().block()).as("11, put after the call was built, is found")
                    .containsExactly("user 2", "user 11");
            assertThat(users.countReactively(new Long[] { 5_001L, 3L }).block()).isEqualTo(1);
        });
    }

    @Test
    void aShadowFilterPrunesNothingAndCountsWhatItWouldHaveDropped() {
        run((users, registry) -> {
            NamedBloomFilter watched = registry.get("watched");
            PRESENT.forEach(watched::put);
            assertAbsent(watched, 5_001L, 5_002L);
            assertThat(users.findWatched(List.of(1L, 5_001L, 5_002L))).containsExactly("user 1", "user 5001", "user 5002");
            assertThat(watched.stats().shadowRejections()).isEqualTo(2);
            assertThat(watched.stats().rejected()).isZero();
        });
    }

    @Test
    void keysThatPassedAndFoundNothingAreFalsePositives() {
        run((users, registry) -> {
            users.rowsExist(false);
            users.findAllById(List.of(1L, 2L, 3L));
            assertThat(registry.get("users").stats().falsePositives()).isEqualTo(3);
        });
    }

    @Test
    void aFilterThatIsNotReadyPrunesNothing() {
        runner.run(context -> {
            Users users = context.getBean(Users.class);
            assertThat(users.findAllById(List.of(1L, 5_001L))).containsExactly("user 1", "user 5001");
        });
    }

    private void run(PrunedCalls test) {
        runner.run(context -> {
            context.getBean(FilterPreloader.class).preloadAll();
            BloomFilterRegistry registry = context.getBean(BloomFilterRegistry.class);
            PRESENT.forEach(registry.get("users")::put);
            test.accept(usersOf(context), registry);
        });
    }

    private static Users usersOf(AssertableApplicationContext context) {
        return context.getBean(Users.class);
    }

    /** The test relies on the filter answering "absent" for these: a false positive would keep them. */
    private static void assertAbsent(NamedBloomFilter filter, Object... keys) {
        assertThat(filter.mightContainAll(List.of(keys))).as("keys the filter says are absent").containsOnly(false);
    }

    @FunctionalInterface
    interface PrunedCalls {

        void accept(Users users, BloomFilterRegistry registry) throws Exception;
    }

    record SkuRef(String tenant, String sku) {
    }

    static class Users {

        // Read through methods: the test holds the guard's proxy, whose own fields are unset.
        private final AtomicReference<Object> received = new AtomicReference<>();
        private final AtomicInteger calls = new AtomicInteger();
        private volatile boolean rowsExist = true;

        public Object received() {
            return received.get();
        }

        public AtomicInteger calls() {
            return calls;
        }

        public void rowsExist(boolean exist) {
            rowsExist = exist;
        }

        @BloomGuarded(filter = "users")
        public List<String> findAllById(Iterable<Long> ids) {
            received.set(ids);
            calls.incrementAndGet();
            List<String> found = new ArrayList<>();
            ids.forEach(id -> {
                if (rowsExist) {
                    found.add("user " + id);
                }
            });
            return found;
        }

        @BloomGuarded(filter = "users")
        public Set<String> findAllIn(Set<Long> ids) {
            received.set(ids);
            Set<String> found = new LinkedHashSet<>();
            ids.forEach(id -> found.add("user " + id));
            return found;
        }

        @BloomGuarded(filter = "users")
        public List<String> findAllOf(long[] ids) {
            received.set(ids);
            return Arrays.stream(ids).mapToObj(id -> "user " + id).toList();
        }

        @BloomGuarded(filter = "skus", key = "#skus", elementKey = "#tenant + ':' + #e")
        public List<String> findSkus(String tenant, List<String> skus) {
            return skus.stream().map(sku -> tenant + ":" + sku).toList();
        }

        @BloomGuarded(filter = "skus", elementKey = "#e.tenant + ':' + #e.sku")
        public List<String> findBySkuRefs(List<SkuRef> refs) {
            return refs.stream().map(ref -> ref.tenant() + ":" + ref.sku()).toList();
        }

        @BloomGuarded(filter = "users")
        public Flux<String> findAllReactively(List<Long> ids) {
            calls.incrementAndGet();
            return Flux.fromIterable(ids).map(id -> "user " + id);
        }

        @BloomGuarded(filter = "users")
        public Mono<Integer> countReactively(Long[] ids) {
            calls.incrementAndGet();
            return Mono.just(ids.length);
        }

        @BloomGuarded(filter = "watched")
        public List<String> findWatched(List<Long> ids) {
            return ids.stream().map(id -> "user " + id).toList();
        }
    }
}
