package io.bloomguard.redis.port;

/**
 * A filter declared on a key another program owns ({@code redis.key}) that bloom-guard cannot guard as declared: the
 * key holds another type, or the filter there was created with less room or a higher error rate than declared. A
 * configuration mistake: at startup the application does not start; met later, the filter lets every call through
 * until the key holds a filter that fits again.
 *
 * @since 0.1.0
 */
public class RedisForeignFilterException extends IllegalStateException {

    private final String filter;
    private final String action;

    /**
     * @param problem what is wrong, naming the filter and the key
     * @param action  what to change
     */
    public RedisForeignFilterException(String filter, String problem, String action) {
        super(problem);
        this.filter = filter;
        this.action = action;
    }

    /** The filter, by name. */
    public String filter() {
        return filter;
    }

    /** What to change. */
    public String action() {
        return action;
    }
}
