package io.bloomguard.autoconfigure;

import io.bloomguard.registry.FilterSpec;
import io.bloomguard.registry.RedisFilterKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code bloom-guard.filters.<name>.redis.kind}: {@code bitmap} by default, {@code native} for the server's own
 * {@code BF.*} filter, and what a native filter cannot be refused naming the property and what to set.
 */
class RedisKindPropertyTest {

    @Test
    void aRedisFilterIsABitmapUnlessAskedToBeTheServersOwn() {
        List<FilterSpec> specs = resolve("bloom-guard.filters.users.backend", "redis",
                "bloom-guard.filters.users.redis.kind", "native",
                "bloom-guard.filters.orders.backend", "redis");
        assertThat(kind(specs, "users")).isEqualTo(RedisFilterKind.NATIVE);
        assertThat(kind(specs, "orders")).isEqualTo(RedisFilterKind.BITMAP);
    }

    @Test
    void aCuckooFilterOnRedisIsTheServersCuckooFilterAndNeedsTheNativeKind() {
        List<FilterSpec> specs = resolve("bloom-guard.filters.sessions.backend", "redis",
                "bloom-guard.filters.sessions.type", "cuckoo", "bloom-guard.filters.sessions.redis.kind", "native");
        assertThat(kind(specs, "sessions")).isEqualTo(RedisFilterKind.NATIVE);
        assertThatThrownBy(() -> resolve("bloom-guard.filters.sessions.backend", "redis",
                "bloom-guard.filters.sessions.type", "cuckoo"))
            .isInstanceOf(InvalidBloomGuardPropertyException.class)
            .hasMessageContaining("bloom-guard.filters.sessions.type")
            .hasMessageContaining("set redis.kind: native");
    }

    @ParameterizedTest
    @CsvSource({
        "type, counting, 'for a counting filter use redis.kind: bitmap'",
        "redis.shards, 4, 'one key on one node'",
        "redis.near-copy, ordered, 'no near copy reads'"})
    void whatANativeFilterCannotBeStopsStartupNamingThePropertyAndWhy(String property, String value, String why) {
        assertThatThrownBy(() -> resolve("bloom-guard.filters.users.backend", "redis",
                "bloom-guard.filters.users.redis.kind", "native", "bloom-guard.filters.users." + property, value))
            .isInstanceOf(InvalidBloomGuardPropertyException.class)
            .hasMessageContaining("bloom-guard.filters.users." + property)
            .hasMessageContaining(why);
    }

    private static List<FilterSpec> resolve(String... keysAndValues) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        BloomGuardProperties properties = new Binder(new MapConfigurationPropertySource(map))
            .bind("bloom-guard", BloomGuardProperties.class).get();
        return FilterSpecResolver.resolve(properties);
    }

    private static RedisFilterKind kind(List<FilterSpec> specs, String name) {
        FilterSpec spec = specs.stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow();
        return ((FilterSpec.Redis) spec.backend()).kind();
    }
}
