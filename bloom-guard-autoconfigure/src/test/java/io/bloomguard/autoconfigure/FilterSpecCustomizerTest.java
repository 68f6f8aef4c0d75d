package io.bloomguard.autoconfigure;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.FilterSpecCustomizer;
import io.bloomguard.registry.GuardMode;
import io.bloomguard.registry.NamedBloomFilter;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@link FilterSpecCustomizer} bean adjusts one filter's spec in code, over its properties, and what it sets is
 * checked as a property is.
 */
class FilterSpecCustomizerTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BloomGuardAutoConfiguration.class))
            .withPropertyValues("bloom-guard.filters.users.expected-size=1000",
                    "bloom-guard.filters.users.error-rate=0.01", "bloom-guard.filters.orders.expected-size=1000");

    @Test
    void aCustomizerOverridesThePropertiesOfItsFilterOnly() {
        runner.withBean("usersSize", FilterSpecCustomizer.class,
                () -> FilterSpecCustomizer.of("users", spec -> spec.expectedSize(50_000).mode(GuardMode.SHADOW)))
            .run(context -> {
                BloomFilterRegistry registry = context.getBean(BloomFilterRegistry.class);
                NamedBloomFilter users = registry.get("users");
                assertThat(users.spec().sizing().expectedSize()).isEqualTo(50_000);
                assertThat(users.spec().sizing().errorRate()).as("a property it left alone").isEqualTo(0.01);
                assertThat(users.spec().guard().mode()).isEqualTo(GuardMode.SHADOW);
                assertThat(users.capacity()).as("sized as customized").isEqualTo(50_000);
                assertThat(users.sizing()).isEqualTo(FilterSizing.of(50_000, 0.01));
                NamedBloomFilter orders = registry.get("orders");
                assertThat(orders.spec().sizing().expectedSize()).isEqualTo(1000);
                assertThat(orders.spec().guard().mode()).isEqualTo(GuardMode.ENFORCE);
            });
    }

    @Test
    void customizersOfOneFilterRunInTheirBeanOrder() {
        runner.withUserConfiguration(OrderedCustomizers.class).run(context -> {
            NamedBloomFilter users = context.getBean(BloomFilterRegistry.class).get("users");
            assertThat(users.spec().sizing().expectedSize()).as("the later one sees and doubles the first one's")
                .isEqualTo(2 * 3000);
        });
    }

    @Test
    void aValueACustomizerSetsIsCheckedAsItsPropertyWouldBe() {
        runner.withBean(FilterSpecCustomizer.class, () -> FilterSpecCustomizer.of("users", spec -> spec.errorRate(2)))
            .run(context -> assertThat(context).getFailure().rootCause()
                .isInstanceOf(InvalidBloomGuardPropertyException.class)
                .hasMessageContaining("bloom-guard.filters.users.error-rate")
                .hasMessageContaining("a probability greater than 0 and less than 1")
                .hasMessageContaining("set by FilterSpecCustomizer[users]"));
    }

    @Test
    void aCustomizedRedisOptionIsCheckedAgainstTheSizeItWasGiven() {
        runner.withBean(FilterSpecCustomizer.class, () -> FilterSpecCustomizer.of("users",
                spec -> spec.redis(0, io.bloomguard.core.NearCopyMode.OFF)))
            .run(context -> assertThat(context).getFailure().rootCause()
                .hasMessageContaining("bloom-guard.filters.users.redis.shards")
                .hasMessageContaining("set by FilterSpecCustomizer[users]"));
    }

    @Test
    void aCustomizerOfAFilterThatIsNotConfiguredStopsStartup() {
        runner.withBean(FilterSpecCustomizer.class, () -> FilterSpecCustomizer.of("user", spec -> spec.expectedSize(5)))
            .run(context -> assertThat(context).getFailure().rootCause()
                .hasMessageContaining("FilterSpecCustomizer[user] adjusts filter 'user', which is not configured")
                .hasMessageContaining("[users, orders]"));
    }

    @Configuration(proxyBeanMethods = false)
    static class OrderedCustomizers {

        @Bean
        @Order(2)
        static FilterSpecCustomizer doubled() {
            return new FilterSpecCustomizer() {

                @Override
                public String filterName() {
                    return "users";
                }

                @Override
                public void customize(io.bloomguard.registry.FilterSpecBuilder spec) {
                    spec.expectedSize(2 * spec.build().sizing().expectedSize());
                }
            };
        }

        @Bean
        @Order(1)
        static FilterSpecCustomizer first() {
            return FilterSpecCustomizer.of("users", spec -> spec.expectedSize(3000));
        }
    }
}
