package io.bloomguard.preload;

import java.util.List;

/**
 * A key source whose {@code filter()} names a filter that is not configured: its keys would fill nothing, and the
 * application must not start with it. The failure analyzer turns it into a startup report.
 *
 * @since 0.1.0
 */
public class UnknownKeySourceFilterException extends IllegalArgumentException {

    private final String source;
    private final String filter;
    private final List<String> configured;

    public UnknownKeySourceFilterException(String source, String filter, List<String> configured) {
        super("Key source " + source + " is for filter '" + filter + "', which is not configured; configured: "
                + (configured.isEmpty() ? "none" : String.join(", ", configured)));
        this.source = source;
        this.filter = filter;
        this.configured = List.copyOf(configured);
    }

    /** The key source, as it describes itself. */
    public String source() {
        return source;
    }

    /** The filter it names. */
    public String filter() {
        return filter;
    }

    /** Names of the filters that are configured. */
    public List<String> configured() {
        return configured;
    }
}
