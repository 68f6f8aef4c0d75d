package io.bloomguard.guard;

/**
 * A {@code @BloomGuarded}, {@code @BloomPut} or {@code @BloomRemove} that cannot work as written: the application must
 * not start with it. The failure analyzer turns it into a startup report.
 *
 * @since 0.1.0
 */
public class InvalidBloomAnnotationException extends IllegalStateException {

    private final String annotation;
    private final String method;
    private final String problem;
    private final String action;

    public InvalidBloomAnnotationException(String annotation, String method, String problem, String action,
            Throwable cause) {
        super(annotation + " on " + method + ": " + problem, cause);
        this.annotation = annotation;
        this.method = method;
        this.problem = problem;
        this.action = action;
    }

    public InvalidBloomAnnotationException(String annotation, String method, String problem, String action) {
        super(annotation + " on " + method + ": " + problem);
        this.annotation = annotation;
        this.method = method;
        this.problem = problem;
        this.action = action;
    }

    /** The annotation as written, e.g. {@code @BloomGuarded(filter = "userz")}. */
    public String annotation() {
        return annotation;
    }

    /** {@code Type.method} it is on. */
    public String method() {
        return method;
    }

    public String problem() {
        return problem;
    }

    /** What to change. */
    public String action() {
        return action;
    }
}
