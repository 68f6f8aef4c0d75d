package io.bloomguard.autoconfigure;

import io.bloomguard.actuate.BloomFiltersEndpoint;
import io.bloomguard.actuate.BloomFiltersEndpointWebExtension;
import io.bloomguard.annotation.BloomGuarded;
import io.bloomguard.annotation.BloomPut;
import io.bloomguard.annotation.BloomRemove;
import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.NamedBloomFilter;
import org.junit.jupiter.api.Test;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.GeneratedFiles;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.aot.AbstractAotProcessor;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.javapoet.ClassName;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Ahead-of-time processing of an application with bloom-guard, as {@code spring-boot:process-aot} runs it: it
 * succeeds, leaves the filter beans to the registrar (which registers them again when the processed application
 * starts, from the configuration it starts with), and records the reflection a native image needs. The sample
 * application's {@code AotApplicationIT} starts a processed application for real.
 */
class BloomGuardAotProcessingTest {

    @Test
    void filterBeansAreRegisteredWhenTheApplicationStartsNotInTheGeneratedCode() {
        Processed processed = process("bloom-guard.filters.accounts.expected-size=100");

        assertThat(processed.sources()).contains("\"bloomGuardPropertiesRegistrar\"", "\"bloomFilterRegistry\"")
                .doesNotContain("accountsBloomFilter");
    }

    /** Spring Boot's hints for a properties bean, which the bound properties are published as. */
    /** The registry is created to check the annotations and decide the proxies; filters may be gigabytes. */
    @Test
    void theBuildAllocatesNoFilter() {
        Processed processed = process("bloom-guard.filters.accounts.expected-size=100000000");

        assertThat(processed.filterBits()).isZero();
    }

    @Test
    void thePropertiesCanBeBoundInANativeImage() {
        RuntimeHints hints = process("bloom-guard.filters.accounts.expected-size=100").hints();

        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(BloomGuardProperties.class, "setFilters"))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(FilterProperties.class, "setExpectedSize"))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(RedisBackendProperties.class,
                "setCheckTimeout")).accepts(hints);
    }

    @Test
    void theIntegrationsCanBeDetectedInANativeImage() {
        RuntimeHints hints = process("bloom-guard.filters.accounts.expected-size=100").hints();

        assertThat(BloomGuardRuntimeHints.OPTIONAL_CLASSES).contains("reactor.core.publisher.Mono")
                .allSatisfy(name -> assertThat(RuntimeHintsPredicates.reflection().onType(TypeReference.of(name)))
                        .accepts(hints));
    }

    @Test
    void annotatedBeansAndWhatTheirKeyExpressionsReadAreReflectable() throws NoSuchMethodException {
        RuntimeHints hints = process("bloom-guard.filters.accounts.expected-size=100").hints();

        assertThat(RuntimeHintsPredicates.reflection().onType(AccountService.class)).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection()
                .onMethod(AccountService.class.getMethod("find", AccountQuery.class))).accepts(hints);
        // #query.number, and #result.number of what save returns
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(AccountQuery.class, "number"))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Account.class, "getNumber"))
                .accepts(hints);
        // the empty LinkedList a rejected history() returns
        assertThat(RuntimeHintsPredicates.reflection().onType(LinkedList.class)
                .withMemberCategory(MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS)).accepts(hints);
    }

    /** A remove's key reads its parameter, and its condition what the delete returned. */
    @Test
    void removesAndWhatTheirConditionsReadAreReflectable() throws NoSuchMethodException {
        RuntimeHints hints = process(RemovingApplication.class, "bloom-guard.filters.accounts.type=counting",
                "bloom-guard.filters.accounts.expected-size=100").hints();

        assertThat(RuntimeHintsPredicates.reflection().onType(AccountClosing.class)).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection()
                .onMethod(AccountClosing.class.getMethod("close", AccountQuery.class))).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(AccountQuery.class, "number"))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Closure.class, "closed")).accepts(hints);
    }

    /** What a filter, a refused action and an unknown filter's 404 answer is written to JSON from. */
    @Test
    void theEndpointsBodiesCanBeWrittenInANativeImage() {
        RuntimeHints hints = process(EndpointApplication.class, "bloom-guard.filters.accounts.expected-size=100",
                "management.endpoints.web.exposure.include=bloomfilters").hints();

        for (Class<?> body : List.of(BloomFiltersEndpoint.FilterDescriptor.class,
                BloomFiltersEndpoint.RebuildDescriptor.class, BloomFiltersEndpoint.MembershipDescriptor.class,
                BloomFiltersEndpointWebExtension.FailureDescriptor.class,
                BloomFiltersEndpointWebExtension.UnknownFilterDescriptor.class,
                BloomFiltersEndpoint.SpecDescriptor.class)) {
            String firstComponent = body.getRecordComponents()[0].getName();
            assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(body, firstComponent))
                    .as(body.getSimpleName()).accepts(hints);
        }
    }

    /** Each class the code looks up by name, to see which integrations are there, is one a native image knows. */
    @Test
    void everyClassLookedUpByNameIsRegistered() throws IOException {
        Pattern lookup = Pattern.compile("(?:isPresent|optionalClass)\\(\\s*\"([\\w.$]+)\"");
        List<String> looked;
        try (Stream<Path> sources = Files.walk(Path.of("src", "main", "java"))) {
            looked = sources.filter(path -> path.toString().endsWith(".java")).flatMap(path -> {
                Matcher found = lookup.matcher(read(path));
                return found.results().map(result -> result.group(1));
            }).distinct().toList();
        }

        assertThat(looked).contains("io.lettuce.core.AbstractRedisClient", "reactor.core.publisher.Mono");
        assertThat(BloomGuardRuntimeHints.OPTIONAL_CLASSES).containsAll(looked);
    }

    private static String read(Path path) {
        try {
            return Files.readString(path);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private record Processed(String sources, RuntimeHints hints, long filterBits) {
    }

    private static Processed process(String... properties) {
        return process(GuardedApplication.class, properties);
    }

    private static Processed process(Class<?> application, String... properties) {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
            TestPropertyValues.of(properties).applyTo(context);
            context.register(application);
            InMemoryGeneratedFiles files = new InMemoryGeneratedFiles();
            DefaultGenerationContext generation = new DefaultGenerationContext(
                    new ClassNameGenerator(ClassName.get(application)), files);
            // As spring-boot:process-aot runs it.
            System.setProperty(AbstractAotProcessor.AOT_PROCESSING, "true");
            try {
                new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
            }
            finally {
                System.clearProperty(AbstractAotProcessor.AOT_PROCESSING);
            }
            generation.writeGeneratedContent();
            String sources = files.getGeneratedFiles(GeneratedFiles.Kind.SOURCE).values().stream().map(source -> {
                try {
                    return new String(source.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                }
                catch (IOException ex) {
                    throw new UncheckedIOException(ex);
                }
            }).collect(Collectors.joining("\n"));
            long filterBits = context.getBean(BloomFilterRegistry.class).all().stream()
                    .mapToLong(NamedBloomFilter::bitSize).sum();
            return new Processed(sources, generation.getRuntimeHints(), filterBits);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(BloomGuardAutoConfiguration.class)
    static class GuardedApplication {

        @org.springframework.context.annotation.Bean
        AccountService accountService() {
            return new AccountService();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(BloomGuardAutoConfiguration.class)
    static class RemovingApplication {

        @org.springframework.context.annotation.Bean
        AccountClosing accountClosing() {
            return new AccountClosing();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ BloomGuardAutoConfiguration.class, BloomGuardEndpointAutoConfiguration.class })
    static class EndpointApplication {
    }

    public static class AccountClosing {

        @BloomRemove(filter = "accounts", key = "#query.number", condition = "#result.closed")
        public Closure close(AccountQuery query) {
            return new Closure(false);
        }
    }

    public record Closure(boolean closed) {
    }

    public static class AccountService {

        @BloomGuarded(filter = "accounts", key = "#query.number")
        public Optional<Account> find(AccountQuery query) {
            return Optional.empty();
        }

        @BloomGuarded(filter = "accounts")
        public LinkedList<Account> history(long number) {
            return new LinkedList<>();
        }

        @BloomPut(filter = "accounts", key = "#result.number")
        public Account save(String owner) {
            return new Account(owner.length());
        }
    }

    public record AccountQuery(long number) {
    }

    public static class Account {

        private final long number;

        public Account(long number) {
            this.number = number;
        }

        public long getNumber() {
            return number;
        }
    }
}
