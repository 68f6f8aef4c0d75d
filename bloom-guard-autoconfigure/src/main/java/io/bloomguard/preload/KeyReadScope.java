package io.bloomguard.preload;

import java.util.function.Supplier;

/**
 * Where a key source is read: directly, or inside a transaction when the application has a transaction manager.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface KeyReadScope {

    /** Reads without any surrounding scope. */
    KeyReadScope DIRECT = Supplier::get;

    <T> T run(Supplier<T> read);
}
