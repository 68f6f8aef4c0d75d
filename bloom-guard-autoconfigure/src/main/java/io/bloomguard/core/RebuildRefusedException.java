package io.bloomguard.core;

/**
 * A rebuild that was not swapped in, because what it read cannot be proven to hold every key the live filter must
 * keep: it read far fewer keys than the live filter holds (held back until an operator confirms it), or the filter is
 * filled by puts alone and has no key source at all. The live filter is unchanged and keeps guarding.
 *
 * @since 0.1.0
 */
public class RebuildRefusedException extends IllegalStateException {

    public RebuildRefusedException(String message) {
        super(message);
    }
}
