package io.bloomguard.preload;

import org.reactivestreams.Publisher;

import java.util.function.Supplier;

/**
 * Every key that exists for one filter, as a Reactive Streams {@link Publisher}: the key source of a reactive or
 * coroutine application, which needs neither JDBC nor a blocking query. The preload and every rebuild (scheduled,
 * asked for, growth, self-recovery) subscribe afresh and request the keys in bounded batches, more as they go into
 * the filter, so a cursor over millions of rows is never held in memory whole. The filter is {@code READY} only
 * once the publisher completed; an error leaves it as a failing {@link BloomKeySource} does (not trusted: its calls
 * pass through). A publisher cannot carry a null key: leave such rows out in its query.
 *
 * <p>Its keys are waited for on the thread that loads the filter (the preload's, a rebuild's), never on a
 * Reactor thread that must not block: a rebuild started on one is refused.
 *
 * <pre>{@code
 * @Bean
 * ReactiveBloomKeySource userIds(DatabaseClient db) {                    // R2DBC, no DataSource needed
 *     return ReactiveBloomKeySource.of("users",
 *             () -> db.sql("SELECT id FROM users").map(row -> row.get(0, Long.class)).all());
 * }
 * }</pre>
 *
 * A Kotlin {@code Flow} becomes one with {@code asPublisher()} (kotlinx-coroutines-reactive):
 * {@code ReactiveBloomKeySource.of("users") { users.findAll().map { it.id!! }.asPublisher() }}.
 *
 * @since 0.1.0
 */
public interface ReactiveBloomKeySource {

    /** Name of the filter these keys fill. */
    String filter();

    /**
     * The keys, subscribed to once per preload and again for every rebuild: a cold publisher that reads them afresh
     * on each subscription.
     */
    Publisher<?> keys();

    /** A reactive key source from a name and a publisher supplier. */
    static ReactiveBloomKeySource of(String filter, Supplier<? extends Publisher<?>> keys) {
        return new ReactiveBloomKeySource() {
            @Override
            public String filter() {
                return filter;
            }

            @Override
            public Publisher<?> keys() {
                return keys.get();
            }

            @Override
            public String toString() {
                return "ReactiveBloomKeySource[" + filter + "]";
            }
        };
    }
}
