package io.bloomguard.preload;

import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Every key that exists for one filter, read at startup to fill it. The stream is consumed in batches and
 * closed after use, so a database cursor (a Spring Data {@code Stream<Long>} query, a JDBC stream) is never
 * held in memory whole. When the application has a transaction manager, the stream is opened and read inside
 * a transaction, as Spring Data's streaming queries require; not a read-only one, which an application may
 * route to a replica. A key source that reads a replica anyway misses the keys committed within its lag.
 *
 * <pre>{@code
 * @Bean
 * BloomKeySource userIds(UserRepository users) {
 *     return BloomKeySource.of("users", users::streamAllIds);
 * }
 * }</pre>
 *
 * @since 0.1.0
 */
public interface BloomKeySource {

    /** Name of the filter these keys fill. */
    String filter();

    /**
     * Opens the keys; called once per preload (and, for a shared filter, again for every rebuild), and the stream
     * is closed after.
     */
    Stream<?> keys();

    /** A key source from a name and a stream supplier. */
    static BloomKeySource of(String filter, Supplier<? extends Stream<?>> keys) {
        return new BloomKeySource() {
            @Override
            public String filter() {
                return filter;
            }

            @Override
            public Stream<?> keys() {
                return keys.get();
            }

            @Override
            public String toString() {
                return "BloomKeySource[" + filter + "]";
            }
        };
    }
}
