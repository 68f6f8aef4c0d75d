package io.bloomguard.preload;

/**
 * Reading one key source failed: says which source, so that the log and {@link PreloadResult#failure()} of a
 * filter with several sources point at the one to fix. Whatever the source threw is the cause.
 *
 * @since 0.1.0
 */
public class KeySourceFailedException extends RuntimeException {

    private final String source;

    KeySourceFailedException(String source, String message, Throwable cause) {
        super(message, cause);
        this.source = source;
    }

    KeySourceFailedException(String source, String message) {
        super(message);
        this.source = source;
    }

    /** The key source, as it describes itself. */
    public String source() {
        return source;
    }
}
