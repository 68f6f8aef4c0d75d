package io.bloomguard.autoconfigure;

/**
 * A {@code bloom-guard.*} value the application cannot start with.
 *
 * @since 0.1.0
 */
public class InvalidBloomGuardPropertyException extends IllegalStateException {

    private final String property;
    private final String value;
    private final String allowed;

    public InvalidBloomGuardPropertyException(String property, Object value, String allowed) {
        super("Invalid value '" + value + "' for " + property + ": " + allowed);
        this.property = property;
        this.value = String.valueOf(value);
        this.allowed = allowed;
    }

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
