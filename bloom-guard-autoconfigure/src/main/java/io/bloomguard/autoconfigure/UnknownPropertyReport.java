package io.bloomguard.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.origin.PropertySourceOrigin;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.StandardEnvironment;

import java.beans.PropertyDescriptor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Explains a {@code bloom-guard.*} property this version does not know (a typo such as {@code eror-rate}) with the
 * properties its level does know, read off {@link BloomGuardProperties} itself so that the list stays true: as a
 * startup failure for the application's own configuration, as a warning for environment variables and system
 * properties.
 */
final class UnknownPropertyReport {

    private static final ConfigurationPropertyName PREFIX = ConfigurationPropertyName.of("bloom-guard");

    private UnknownPropertyReport() {
    }

    /** The analysis, or {@code null} if no unknown property is bloom-guard's. */
    static @Nullable FailureAnalysis analyze(UnboundConfigurationPropertiesException unbound) {
        List<String> descriptions = new ArrayList<>();
        TreeSet<String> actions = new TreeSet<>();
        for (ConfigurationProperty property : unbound.getUnboundProperties()) {
            ConfigurationPropertyName name = property.getName();
            if (!PREFIX.isAncestorOf(name)) {
                continue;
            }
            Level level = levelOf(name);
            if (level == null) {
                return null; // a name this class cannot place: Spring Boot's own report is the better one
            }
            descriptions.add("Unknown property " + name + " (value '" + property.getValue() + "'"
                    + (property.getOrigin() != null ? ", from " + property.getOrigin() : "") + ")");
            actions.add(level.path + " takes: " + String.join(", ", level.known));
        }
        if (descriptions.isEmpty()) {
            return null;
        }
        return new FailureAnalysis(String.join("\n", descriptions) + ". bloom-guard does not know "
                + (descriptions.size() == 1 ? "it" : "them") + ", so the value would have no effect.",
                "Correct the spelling or remove the property; " + String.join("; ", actions)
                        + ". See docs/properties.md.", unbound);
    }

    /**
     * The warning for an unknown property that comes from an environment variable or a system property: relaxed
     * binding maps those onto {@code bloom-guard.*} even when another tool set them for itself, so they do not
     * stop startup.
     */
    static String warning(ConfigurationProperty property) {
        ConfigurationPropertyName name = property.getName();
        Level level = levelOf(name);
        return "Ignoring " + source(property) + " (value '" + property.getValue() + "'): it reads as "
                + PREFIX.append(name.subName(1)) + ", which bloom-guard does not know"
                + (level != null ? "; " + level.path + " takes: " + String.join(", ", level.known) : "")
                + ". Correct or unset it if it is meant for bloom-guard.";
    }

    private static String source(ConfigurationProperty property) {
        if (property.getOrigin() instanceof PropertySourceOrigin origin) {
            String source = origin.getPropertySource().getName();
            if (source.equals(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME)) {
                return "environment variable " + origin.getPropertyName();
            }
            if (source.equals(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME)) {
                return "system property " + origin.getPropertyName();
            }
        }
        return property.getName() + (property.getOrigin() != null ? " from " + property.getOrigin() : "");
    }

    /** The properties known at the level the unknown name's last element is on. */
    private record Level(String path, List<String> known) {
    }

    private static @Nullable Level levelOf(ConfigurationPropertyName name) {
        Class<?> type = BloomGuardProperties.class;
        StringBuilder path = new StringBuilder("bloom-guard");
        int last = name.getNumberOfElements() - 1;
        for (int i = 1; i < last; i++) {
            String element = name.getElement(i, ConfigurationPropertyName.Form.DASHED);
            PropertyDescriptor descriptor = find(type, element);
            if (descriptor == null) {
                return new Level(path.toString(), known(type)); // unknown part way: say what this level takes
            }
            path.append('.').append(element);
            ResolvableType propertyType = ResolvableType.forMethodReturnType(descriptor.getReadMethod());
            if (Map.class.isAssignableFrom(propertyType.toClass())) {
                if (i + 1 >= last) {
                    return null;
                }
                i++; // the map key: a filter's name
                path.append(".<name>");
                type = propertyType.asMap().getGeneric(1).toClass();
            }
            else {
                type = propertyType.toClass();
            }
        }
        String element = name.getElement(last, ConfigurationPropertyName.Form.DASHED);
        if (find(type, element) != null) {
            return null; // a known property that was left unbound for another reason
        }
        return new Level(path.toString(), known(type));
    }

    private static @Nullable PropertyDescriptor find(Class<?> type, String dashed) {
        for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(type)) {
            if (descriptor.getReadMethod() != null && !descriptor.getName().equals("class")
                    && dashed(descriptor.getName()).equals(dashed)) {
                return descriptor;
            }
        }
        return null;
    }

    private static List<String> known(Class<?> type) {
        List<String> names = new ArrayList<>();
        for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(type)) {
            if (descriptor.getReadMethod() == null || descriptor.getName().equals("class")) {
                continue;
            }
            Class<?> propertyType = descriptor.getPropertyType();
            boolean group = !BeanUtils.isSimpleValueType(propertyType) && !propertyType.isEnum()
                    && propertyType != java.time.Duration.class;
            names.add(dashed(descriptor.getName()) + (group ? ".*" : ""));
        }
        return names;
    }

    private static String dashed(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(java.util.Locale.ROOT);
    }
}
