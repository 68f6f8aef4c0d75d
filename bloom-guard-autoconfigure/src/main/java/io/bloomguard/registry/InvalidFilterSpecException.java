package io.bloomguard.registry;

/**
 * A {@link FilterSpec} value that cannot be, named by the property it corresponds to under
 * {@code bloom-guard.filters.<name>}: the auto-configuration reports it as that property, or as set by a
 * {@link FilterSpecCustomizer}.
 *
 * @since 0.1.0
 */
public class InvalidFilterSpecException extends IllegalArgumentException {

    private final String filter;
    private final String property;
    private final String value;
    private final String allowed;

    public InvalidFilterSpecException(String filter, String property, Object value, String allowed) {
        super("Invalid value '" + value + "' for " + (property.isEmpty() ? "the name of filter '" + filter + "'"
                : property + " of filter '" + filter + "'") + ": " + allowed);
        this.filter = filter;
        this.property = property;
        this.value = String.valueOf(value);
        this.allowed = allowed;
    }

    /** The filter's name. */
    public String filter() {
        return filter;
    }

    /** The property under {@code bloom-guard.filters.<name>}, such as {@code redis.shards}; empty for the name. */
    public String property() {
        return property;
    }

    public String value() {
        return value;
    }

    /** What would be accepted instead. */
    public String allowed() {
        return allowed;
    }
}
