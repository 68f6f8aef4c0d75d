package io.bloomguard.core;

/**
 * A rebuild was asked for while one is under way: for a shared filter, by whichever instance holds its load lock.
 * Nothing was changed; asking again once that build is done succeeds.
 *
 * @since 0.1.0
 */
public class RebuildInProgressException extends IllegalStateException {

    public RebuildInProgressException(String message) {
        super(message);
    }
}
