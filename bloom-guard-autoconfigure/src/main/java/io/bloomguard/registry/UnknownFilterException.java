package io.bloomguard.registry;

import java.util.Collection;

/**
 * Asked for a filter name that is not configured.
 *
 * @since 0.1.0
 */
public class UnknownFilterException extends IllegalArgumentException {

    private final String name;

    public UnknownFilterException(String name, Collection<String> known) {
        super("No Bloom filter named '" + name + "'; configured: "
                + (known.isEmpty() ? "none (declare one under bloom-guard.filters)" : String.join(", ", known)));
        this.name = name;
    }

    public String name() {
        return name;
    }
}
