package io.bloomguard.guard;

import io.bloomguard.annotation.BloomGuarded;
import io.bloomguard.annotation.BloomPut;
import io.bloomguard.autoconfigure.BloomGuardAutoConfiguration;
import io.bloomguard.autoconfigure.BloomGuardFailureAnalyses;
import io.bloomguard.preload.FilterPreloader;
import io.bloomguard.registry.NamedBloomFilter;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.LazyInitializationBeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A mistake in an annotation stops startup, and the failure analyzer says what and where. Each case is a
 * bean with one bad method; the filter 'users' is configured.
 */
class AnnotationValidationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, BloomGuardAutoConfiguration.class))
            .withPropertyValues("bloom-guard.filters.users.expected-size=1000", "bloom-guard.filters.skus.expected-size=1000");

    @Test
    void aValidBeanStarts() {
        runner.withBean(ValidService.class).run(context -> {
            assertThat(context).hasNotFailed();
            ValidService service = context.getBean(ValidService.class);
            assertThat(service.find(1L)).as("still loading: passes through").contains("user 1");
            context.getBean(FilterPreloader.class).preloadAll();
            assertThat(service.find(1L)).as("ready and empty: rejected").isEmpty();
            assertThat(service.save("bob")).isEqualTo(3L);
            assertThat(service.find(3L)).contains("user 3");
            assertThat(service.saveLater("dora").join()).isEqualTo(4L);
            assertThat(service.find(4L)).contains("user 4");
            assertThat(service.saveReactively("alice").block()).isEqualTo(new Saved(5));
            assertThat(service.find(5L)).contains("user 5");
            assertThat(service.saveAllReactively("sixsix", "sevennn").collectList().block()).containsExactly(6L, 7L);
            assertThat(service.find(6L)).contains("user 6");
            assertThat(service.find(7L)).contains("user 7");
            service.markAll(List.of(8L, 9L));
            service.markEach(10L, 11L);
            assertThat(List.of(8L, 9L, 10L, 11L)).allSatisfy(id -> assertThat(service.find(id)).contains("user " + id));
        });
    }

    /**
     * A local filter filled by puts alone is empty after every restart: guarding with it would reject every record
     * written before. Startup refuses it, naming the filter and what to add; putting into it to deduplicate works.
     */
    @Test
    void aGuardOnALocalFilterFilledByPutsAloneIsRefused() {
        runner.withPropertyValues("bloom-guard.filters.seen.puts-only=true",
                "bloom-guard.filters.seen.expected-size=100")
                .withBean(GuardedBySeen.class).run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = BloomGuardFailureAnalyses.analyze(context.getStartupFailure());
                    assertThat(analysis).as("failure analysis").isNotNull();
                    assertThat(analysis.getDescription()).contains("@BloomGuarded(filter = \"seen\") on"
                            + " GuardedBySeen.find: filter 'seen' is a local filter filled by puts alone");
                    assertThat(analysis.getAction()).contains("bloom-guard.filters.seen.preload.sql")
                            .contains("BloomKeySource").contains("backend: redis");
                });
        runner.withPropertyValues("bloom-guard.filters.seen.puts-only=true",
                "bloom-guard.filters.seen.expected-size=100")
                .withBean(DeduplicatingBySeen.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    context.getBean(FilterPreloader.class).preloadAll();
                    DeduplicatingBySeen service = context.getBean(DeduplicatingBySeen.class);
                    assertThat(service.record("a")).as("new").isTrue();
                    assertThat(service.record("a")).as("seen before").isFalse();
                });
    }

    @Test
    void unknownFilterName() {
        assertFailure(UnknownFilter.class,
                "@BloomGuarded(filter = \"userz\") on UnknownFilter.find: no filter named 'userz'; configured: users, skus",
                "declare bloom-guard.filters.userz");
    }

    /** {@code spring.main.lazy-initialization=true} must not defer the check to the first call. */
    @Test
    void aMistakeStillStopsStartupUnderLazyInitialization() {
        runner.withInitializer(context -> context.addBeanFactoryPostProcessor(
                new LazyInitializationBeanFactoryPostProcessor())).withBean(UnknownFilter.class).run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure())
                            .hasStackTraceContaining("on UnknownFilter.find: no filter named 'userz'");
                });
    }

    @Test
    void anElementKeyOnAKeyThatIsNotACollection() {
        assertFailure(ElementKeyOnOneKey.class, "on ElementKeyOnOneKey.find: elementKey is set, but the key is not a"
                + " parameter that is a collection or array", "Name the parameter that holds the keys");
    }

    @Test
    void anElementKeyThatDoesNotUseTheElement() {
        assertFailure(ElementKeyWithoutElement.class, "on ElementKeyWithoutElement.find: elementKey does not use #e",
                "Compute each element's key from #e");
    }

    @Test
    void anElementKeyNamingAMissingParameter() {
        assertFailure(ElementKeyMissingParameter.class, "element key expression names #tenantId, which is not a"
                + " parameter of the method; parameters: tenant, skus", "or #e");
    }

    @Test
    void keysInACollectionThatCannotBeRemadeSmaller() {
        assertFailure(KeysInAnOddCollection.class, "the keys are the elements of a " + OddIds.class.getName()
                + ", and bloom-guard cannot make one with only the elements that might exist",
                "Declare the parameter as Iterable, Collection, List, Set or an array");
    }

    @Test
    void keysInACollectionOfElementsWithNoKeyForm() {
        assertFailure(KeysWithNoKeyForm.class, "the keys are the elements of the parameter of type "
                + Thread.class.getName() + ", which has no canonical key form", "key = \"...\"");
    }

    @Test
    void keyExpressionThatDoesNotParse() {
        assertFailure(BadExpression.class, "on BadExpression.find: key expression does not parse", "SpEL");
    }

    @Test
    void keyExpressionNamingAMissingParameter() {
        assertFailure(MissingParameter.class,
                "on MissingParameter.find: key expression names #userId, which is not a parameter of the method; parameters: id",
                "Use one of the parameter names");
    }

    @Test
    void keyExpressionReferringToABean() {
        assertFailure(BeanInKey.class, "on BeanInKey.find: key expression refers to a bean (@name)",
                "Compute the key from the parameters");
    }

    @Test
    void keyExpressionUsingSpringCachesRootObject() {
        assertFailure(RootInKey.class, "on RootInKey.save: key expression uses #root", "#p0");
    }

    @Test
    void guardAndPutOnOneMethodWithTheSameFilter() {
        assertFailure(GuardedPut.class, "on GuardedPut.register: the method is guarded by the filter it puts into",
                "call the filter's put()");
    }

    /** A JDK Flow publisher (as RxJava's and Mutiny's types) is a promise too: null would be no answer. */
    @Test
    void promiseTypeOfAnotherLibrary() {
        assertFailure(FlowLookup.class, "return type java.util.concurrent.Flow$Publisher has no empty value",
                "Return Optional");
    }

    /** A method declared with a type variable answers with the empty value of the type the bean gives it. */
    @Test
    void aRejectedCallOfAGenericMethodAnswersWithTheEmptyValueOfItsTypeInTheBean() {
        runner.withBean(OptionalLookup.class).run(context -> {
            assertThat(context).hasNotFailed();
            context.getBean(FilterPreloader.class).preloadAll();
            Object answer = context.getBean(OptionalLookup.class).find(1L);
            assertThat(answer).as("ready and empty: rejected").isEqualTo(Optional.empty());
        });
    }

    @Test
    void putOfACollectionOfKeysWithNoCanonicalKeyForm() {
        assertFailure(FractionsPut.class, "the keys are the elements of the parameter of type java.lang.Double",
                "key = ");
    }

    /**
     * Behind a JDK proxy a call arrives at the interface's method: the key expression still names the parameters of
     * the method it is written on.
     */
    @Test
    void aKeyExpressionNamesTheParametersOfTheMethodItIsWrittenOn() {
        runner.withPropertyValues("spring.aop.proxy-target-class=false").withBean(SkuLookup.class).run(context -> {
            assertThat(context).hasNotFailed();
            SkuFinder finder = context.getBean(SkuFinder.class);
            assertThat(finder).isNotInstanceOf(SkuLookup.class); // a JDK proxy of the interface
            assertThat(finder.find("acme", "x1")).as("still loading: passes through").contains("acme:x1");
            context.getBean(FilterPreloader.class).preloadAll();
            assertThat(finder.find("acme", "x1")).as("ready and empty: rejected").isEmpty();
        });
    }

    @Test
    void resultInAGuard() {
        assertFailure(ResultInGuard.class, "#result is only known after the method ran", "parameters");
    }

    @Test
    void noKeyAndTwoParameters() {
        assertFailure(TwoParameters.class, "no key expression, and the method has 2 parameters instead of one",
                "key = \"#p0\"");
    }

    @Test
    void parameterTypeWithNoCanonicalKeyForm() {
        assertFailure(DoubleKey.class, "the key is the parameter of type java.lang.Double, which has no canonical key form",
                "key = ");
    }

    @Test
    void keyExpressionThatIsAParameterWithNoCanonicalKeyForm() {
        assertFailure(EntityKey.class, "the key is the parameter of type java.util.Map, which has no canonical key form",
                "#p0.id");
    }

    @Test
    void returnTypeWithNoEmptyValue() {
        assertFailure(FutureResult.class,
                "return type java.util.concurrent.CompletableFuture has no empty value to answer a rejected call with",
                "Return Optional");
    }

    @Test
    void putToAnUnknownFilter() {
        assertFailure(PutUnknown.class, "@BloomPut(filter = \"nope\", key = \"#result\") on PutUnknown.save: no filter named 'nope'",
                "bloom-guard.filters.nope");
    }

    @Test
    void resultKeyOnAMethodReturningNothing() {
        assertFailure(VoidResult.class, "on VoidResult.save: the key uses #result, but the method returns nothing",
                "Return the saved entity or its key");
    }

    @Test
    void resultKeyOnAFutureItCannotWatch() {
        assertFailure(FutureSave.class,
                "the key uses #result, which would be the Future itself, and bloom-guard cannot watch a Future for the"
                        + " value it delivers",
                "Return a CompletableFuture, a Mono or a Flux (#result is then its value)");
    }

    @Test
    void resultKeyOnAPromiseOfNothing() {
        assertFailure(MonoOfNothing.class, "on MonoOfNothing.save: the key uses #result, but the method's Mono<Void>"
                + " delivers no value", "Deliver the saved entity or its key");
    }

    @Test
    void resultKeyThatIsAPromisedValueWithNoCanonicalKeyForm() {
        assertFailure(MonoOfEntity.class, "the key is the value of the Mono, of type " + Saved.class.getTypeName()
                + ", which has no canonical key form", "key = \"#result.id\"");
        assertFailure(FluxOfEntities.class, "the key is each element of the Flux, of type " + Saved.class.getTypeName()
                + ", which has no canonical key form", "key = \"#result.id\"");
    }

    @Test
    void resultKeyOfATypeWithNoCanonicalKeyForm() {
        assertFailure(EntityResult.class, "the key is the method's result, of type "
                + Saved.class.getTypeName() + ", which has no canonical key form", "key = \"#result.id\"");
    }

    @Test
    void annotationOnAFinalMethod() {
        assertFailure(FinalPut.class, "on FinalPut.save: the method is final, so Spring's proxy never sees its calls",
                "neither static nor final");
    }

    @Test
    void annotationOnAPrivateMethod() {
        assertFailure(PrivateGuard.class, "on PrivateGuard.find: the method is private", "Make the method public");
    }

    /** Spring's class proxies intercept protected and package-private methods too, so they are checked as well. */
    @Test
    void aNonPublicMethodIsGuardedAndChecked() {
        runner.withBean(ProtectedGuard.class).run(context -> {
            assertThat(context).hasNotFailed();
            ProtectedGuard service = context.getBean(ProtectedGuard.class);
            context.getBean(FilterPreloader.class).preloadAll();
            assertThat(service.find(1L)).as("protected, ready and empty: rejected").isEmpty();
            assertThat(service.findInPackage(1L)).as("package-private: rejected").isEmpty();
        });
        assertFailure(ProtectedMistake.class, "on ProtectedMistake.findBySku: key expression names #skew, which is not a parameter of the method; parameters: sku",
                "Use one of the parameter names");
    }

    private void assertFailure(Class<?> bean, String description, String action) {
        runner.withBean(bean).run(context -> {
            assertThat(context).hasFailed();
            Throwable failure = context.getStartupFailure();
            Throwable invalid = failure;
            while (invalid != null && !(invalid instanceof InvalidBloomAnnotationException)) {
                invalid = invalid.getCause();
            }
            assertThat(invalid).as("InvalidBloomAnnotationException in the causes of %s", failure).isNotNull()
                    .hasMessageContaining(description);
            FailureAnalysis analysis = BloomGuardFailureAnalyses.analyze(failure);
            assertThat(analysis).as("failure analysis").isNotNull();
            assertThat(analysis.getDescription()).contains(description);
            assertThat(analysis.getAction()).contains(action);
        });
    }

    static class ValidService {

        @BloomGuarded(filter = "users")
        public Optional<String> find(Long id) {
            return Optional.of("user " + id);
        }

        @BloomGuarded(filter = "skus", key = "#tenant + ':' + #sku")
        public String find(String tenant, String sku) {
            return tenant + sku;
        }

        @BloomPut(filter = "users", key = "#result")
        public long save(String name) {
            return name.length();
        }

        @BloomPut(filter = "users", key = "#result")
        public CompletableFuture<Long> saveLater(String name) {
            return CompletableFuture.completedFuture((long) name.length());
        }

        @BloomPut(filter = "users", key = "#result.id")
        public Mono<Saved> saveReactively(String name) {
            return Mono.just(new Saved(name.length()));
        }

        @BloomPut(filter = "users", key = "#result")
        public Flux<Long> saveAllReactively(String... names) {
            return Flux.fromArray(names).map(name -> (long) name.length());
        }

        /** A collection of keys: each is put. */
        @BloomPut(filter = "users", key = "#ids")
        public void markAll(List<Long> ids) {
        }

        /** The single parameter, an array of keys. */
        @BloomPut(filter = "users")
        public void markEach(Long... ids) {
        }
    }

    static class FractionsPut {

        @BloomPut(filter = "users", key = "#values")
        public void mark(List<Double> values) {
        }
    }

    static class BeanInKey {

        @BloomGuarded(filter = "users", key = "@keys.userKey(#id)")
        public Optional<String> find(Long id) {
            return Optional.empty();
        }
    }

    static class RootInKey {

        @BloomPut(filter = "users", key = "#root.args[0]")
        public void save(Long id) {
        }
    }

    static class GuardedPut {

        @BloomGuarded(filter = "users", key = "#id")
        @BloomPut(filter = "users", key = "#id")
        public Optional<String> register(Long id) {
            return Optional.of("registered " + id);
        }
    }

    static class FlowLookup {

        @BloomGuarded(filter = "users")
        public java.util.concurrent.Flow.Publisher<String> find(Long id) {
            return new java.util.concurrent.SubmissionPublisher<>();
        }
    }

    abstract static class BaseLookup<V> {

        @BloomGuarded(filter = "users")
        public V find(Long id) {
            return load(id);
        }

        protected abstract V load(Long id);
    }

    static class OptionalLookup extends BaseLookup<Optional<String>> {

        @Override
        protected Optional<String> load(Long id) {
            return Optional.of("user " + id);
        }
    }

    interface SkuFinder {

        Optional<String> find(String tenantId, String skuCode);
    }

    static class SkuLookup implements SkuFinder {

        @Override
        @BloomGuarded(filter = "skus", key = "#tenant + ':' + #sku")
        public Optional<String> find(String tenant, String sku) {
            return Optional.of(tenant + ":" + sku);
        }
    }

    static class GuardedBySeen {

        @BloomGuarded(filter = "seen")
        public Optional<String> find(String url) {
            return Optional.of(url);
        }
    }

    /** Puts into the filter and acts on its answer: the use a filter filled by puts alone is for. */
    static class DeduplicatingBySeen {

        private final NamedBloomFilter seen;

        DeduplicatingBySeen(@Qualifier("seen") NamedBloomFilter seen) {
            this.seen = seen;
        }

        public boolean record(String url) {
            return seen.put(url);
        }
    }

    static class UnknownFilter {

        @BloomGuarded(filter = "userz")
        public Optional<String> find(Long id) {
            return Optional.empty();
        }
    }

    static class BadExpression {

        @BloomGuarded(filter = "users", key = "#id +")
        public Optional<String> find(Long id) {
            return Optional.empty();
        }
    }

    static class MissingParameter {

        @BloomGuarded(filter = "users", key = "#userId")
        public Optional<String> find(Long id) {
            return Optional.empty();
        }
    }

    static class ResultInGuard {

        @BloomGuarded(filter = "users", key = "#result")
        public Optional<String> find(Long id) {
            return Optional.empty();
        }
    }

    static class TwoParameters {

        @BloomGuarded(filter = "users")
        public Optional<String> find(String tenant, Long id) {
            return Optional.empty();
        }
    }

    static class DoubleKey {

        @BloomGuarded(filter = "users")
        public Optional<String> find(Double price) {
            return Optional.empty();
        }
    }

    static class EntityKey {

        @BloomGuarded(filter = "users", key = "#tenant")
        public Optional<String> find(java.util.Map<String, Long> tenant, Long id) {
            return Optional.empty();
        }
    }

    static class FutureResult {

        @BloomGuarded(filter = "users")
        public CompletableFuture<String> find(Long id) {
            return CompletableFuture.completedFuture("x");
        }
    }

    static class VoidResult {

        @BloomPut(filter = "users", key = "#result")
        public void save(String name) {
        }
    }

    static class FutureSave {

        @BloomPut(filter = "users", key = "#result")
        public Future<Long> save(String name) {
            return CompletableFuture.completedFuture(1L);
        }
    }

    static class MonoOfNothing {

        @BloomPut(filter = "users", key = "#result")
        public Mono<Void> save(String name) {
            return Mono.empty();
        }
    }

    static class MonoOfEntity {

        @BloomPut(filter = "users", key = "#result")
        public Mono<Saved> save(String name) {
            return Mono.just(new Saved(1));
        }
    }

    static class FluxOfEntities {

        @BloomPut(filter = "users", key = "#result")
        public Flux<Saved> save(String name) {
            return Flux.just(new Saved(1));
        }
    }

    record Saved(long id) {
    }

    static class EntityResult {

        @BloomPut(filter = "users", key = "#result")
        public Saved save(String name) {
            return new Saved(1);
        }
    }

    static class FinalPut {

        @BloomPut(filter = "users", key = "#result")
        public final long save(String name) {
            return 1;
        }
    }

    static class PrivateGuard {

        public Optional<String> open(Long id) {
            return find(id);
        }

        @BloomGuarded(filter = "users")
        private Optional<String> find(Long id) {
            return Optional.empty();
        }
    }

    static class ProtectedGuard {

        @BloomGuarded(filter = "users")
        protected Optional<String> find(Long id) {
            return Optional.of("user " + id);
        }

        @BloomGuarded(filter = "users")
        Optional<String> findInPackage(Long id) {
            return Optional.of("user " + id);
        }
    }

    /** A valid public method and a wrong protected one: the protected one must not wait for its first call. */
    static class ProtectedMistake {

        @BloomGuarded(filter = "users")
        public Optional<String> find(Long id) {
            return Optional.empty();
        }

        @BloomGuarded(filter = "skus", key = "#skew")
        protected Optional<String> findBySku(String sku) {
            return Optional.empty();
        }
    }

    static class PutUnknown {

        @BloomPut(filter = "nope", key = "#result")
        public long save(String name) {
            return 1;
        }
    }

    static class ElementKeyOnOneKey {

        @BloomGuarded(filter = "users", elementKey = "#e")
        public Optional<String> find(Long id) {
            return Optional.empty();
        }
    }

    static class ElementKeyWithoutElement {

        @BloomGuarded(filter = "skus", key = "#skus", elementKey = "#tenant")
        public List<String> find(String tenant, List<String> skus) {
            return List.of();
        }
    }

    static class ElementKeyMissingParameter {

        @BloomGuarded(filter = "skus", key = "#skus", elementKey = "#tenantId + ':' + #e")
        public List<String> find(String tenant, List<String> skus) {
            return List.of();
        }
    }

    /** A collection of its own, with no constructor bloom-guard could call. */
    static final class OddIds extends java.util.AbstractList<Long> {

        OddIds(int size) {
        }

        @Override
        public Long get(int index) {
            throw new IndexOutOfBoundsException(index);
        }

        @Override
        public int size() {
            return 0;
        }
    }

    static class KeysInAnOddCollection {

        @BloomGuarded(filter = "users")
        public List<String> find(OddIds ids) {
            return List.of();
        }
    }

    static class KeysWithNoKeyForm {

        @BloomGuarded(filter = "users")
        public List<String> find(List<Thread> threads) {
            return List.of();
        }
    }
}
