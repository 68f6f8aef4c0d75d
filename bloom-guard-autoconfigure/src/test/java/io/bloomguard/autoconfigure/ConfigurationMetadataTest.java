package io.bloomguard.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.boot.json.JsonParserFactory;
import org.springframework.core.ResolvableType;
import org.springframework.util.ClassUtils;

import java.beans.PropertyDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an IDE completes and explains for {@code bloom-guard.*}: the configuration metadata of this module (generated
 * from the properties classes' Javadoc, merged with {@code additional-spring-configuration-metadata.json}) describes
 * every property the properties classes bind, per filter as in the defaults, with its real default and, for a
 * choice, every value it takes.
 */
class ConfigurationMetadataTest {

    private static final Map<String, Map<String, Object>> PROPERTIES = byName("properties");

    private static final Map<String, Map<String, Object>> HINTS = byName("hints");

    /** Every leaf the properties classes bind, with its type and its value when unset; '*' is a filter's name. */
    private static final Map<String, Leaf> LEAVES = leaves("bloom-guard", BloomGuardProperties::new);

    @Test
    void everyBoundPropertyIsDescribed() {
        assertThat(LEAVES).containsKeys("bloom-guard.enabled", "bloom-guard.defaults.expected-size",
                "bloom-guard.defaults.rebuild.cron", "bloom-guard.filters.*.expected-size",
                "bloom-guard.filters.*.preload.sql", "bloom-guard.filters.*.redis.shards",
                "bloom-guard.redis.lock-ttl");
        LEAVES.forEach((name, leaf) -> {
            assertThat(PROPERTIES).as("metadata of %s", name).containsKey(name);
            Map<String, Object> property = PROPERTIES.get(name);
            assertThat((String) property.get("description")).as("description of %s", name).isNotBlank()
                    .doesNotContain("{@").doesNotStartWith("The ").doesNotStartWith("A ");
            assertThat(((String) property.get("type")).replaceFirst("<.*", "")).as("type of %s", name)
                    .isEqualTo(ClassUtils.resolvePrimitiveIfNecessary(leaf.type()).getName());
        });
    }

    @Test
    void everyDescribedPropertyIsBound() {
        assertThat(PROPERTIES.keySet().stream().filter(name -> name.startsWith("bloom-guard.")))
                .as("described, not bound")
                .allMatch(name -> LEAVES.containsKey(name) || name.equals("bloom-guard.filters"));
    }

    @Test
    void everyDefaultIsTheValueOfAnUnsetProperty() {
        LEAVES.forEach((name, leaf) -> {
            Object documented = PROPERTIES.get(name).get("defaultValue");
            Object converted = (documented != null) ? ApplicationConversionService.getSharedInstance()
                    .convert(documented, ClassUtils.resolvePrimitiveIfNecessary(leaf.type())) : null;
            assertThat(converted).as("documented default of %s", name).isEqualTo(leaf.unset());
        });
    }

    @Test
    void everyChoiceListsEachValueWithADescription() {
        LEAVES.forEach((name, leaf) -> {
            if (!leaf.type().isEnum()) {
                return;
            }
            assertThat(HINTS).as("hint of %s", name).containsKey(name);
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> values = (List<Map<String, Object>>) HINTS.get(name).get("values");
            assertThat(values).extracting(value -> value.get("value")).as("values of %s", name)
                    .containsExactlyElementsOf(Arrays.stream(leaf.type().getEnumConstants())
                            .map(constant -> ((Enum<?>) constant).name().toLowerCase(Locale.ROOT).replace('_', '-'))
                            .toList());
            assertThat(values).allSatisfy(value -> assertThat((String) value.get("description"))
                    .as("description of %s=%s", name, value.get("value")).isNotBlank());
        });
    }

    @Test
    void filterNamesAreExplained() {
        assertThat((String) PROPERTIES.get("bloom-guard.filters").get("description"))
                .contains("bloom-guard.filters.*.");
        assertThat(HINTS).containsKey("bloom-guard.filters.keys");
    }

    private record Leaf(Class<?> type, @Nullable Object unset) {
    }

    /** The leaves under {@code prefix} of the group {@code group} makes, read off its getters. */
    private static Map<String, Leaf> leaves(String prefix, Supplier<Object> group) {
        Object instance = group.get();
        Map<String, Leaf> leaves = new LinkedHashMap<>();
        for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(instance.getClass())) {
            if (descriptor.getReadMethod() == null || descriptor.getName().equals("class")) {
                continue;
            }
            String name = prefix + "." + dashed(descriptor.getName());
            Class<?> type = descriptor.getPropertyType();
            Object value = invoke(descriptor, instance);
            if (Map.class.isAssignableFrom(type)) {
                Class<?> valueType = ResolvableType.forMethodReturnType(descriptor.getReadMethod()).asMap()
                        .getGeneric(1).toClass();
                if (valueType.getPackage() == String.class.getPackage()) {
                    leaves.put(name, new Leaf(type, null)); // a map of plain values is one property, empty when unset
                }
                else {
                    leaves.putAll(leaves(name + ".*", () -> BeanUtils.instantiateClass(valueType)));
                }
            }
            else if (type.getPackage() == BloomGuardProperties.class.getPackage()) {
                leaves.putAll(leaves(name, () -> value));
            }
            else {
                leaves.put(name, new Leaf(type, value));
            }
        }
        return leaves;
    }

    private static @Nullable Object invoke(PropertyDescriptor descriptor, Object instance) {
        try {
            return descriptor.getReadMethod().invoke(instance);
        }
        catch (ReflectiveOperationException ex) {
            throw new IllegalStateException(ex);
        }
    }

    private static String dashed(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }

    /**
     * This module's metadata, entries of one kind by name: what the processor generated, and the additional entries
     * over it, as the processor merges them (read apart, so that a build that did not recompile still sees an edit).
     */
    private static Map<String, Map<String, Object>> byName(String kind) {
        Map<String, Map<String, Object>> entries = new LinkedHashMap<>();
        for (String file : List.of("spring-configuration-metadata.json",
                "additional-spring-configuration-metadata.json")) {
            for (Map<String, Object> entry : entries(file, kind)) {
                entries.put((String) entry.get("name"), entry);
            }
        }
        return entries;
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> entries(String file, String kind) {
        URL classes = BloomGuardProperties.class.getProtectionDomain().getCodeSource().getLocation();
        try (InputStream in = new URL(classes, "META-INF/" + file).openStream()) {
            Map<String, Object> metadata = JsonParserFactory.getJsonParser()
                    .parseMap(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            return (List<Map<String, Object>>) metadata.getOrDefault(kind, List.of());
        }
        catch (IOException ex) {
            throw new IllegalStateException("No META-INF/" + file + " in " + classes, ex);
        }
    }
}
