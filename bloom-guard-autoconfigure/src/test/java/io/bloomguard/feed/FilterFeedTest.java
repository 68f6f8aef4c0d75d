package io.bloomguard.feed;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.feed.JdbcPollingFeedTest.MovableClock;
import io.bloomguard.local.LocalCountingFilter;
import io.bloomguard.local.RebuildableLocalFilter;
import io.bloomguard.registry.FilterSpec;
import io.bloomguard.registry.FilterState;
import io.bloomguard.registry.FilterType;
import io.bloomguard.registry.NamedBloomFilter;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What a filter does with its feed's batches: adds go in, a deleted row's key leaves a counting filter only when the
 * filter's build certainly counted it, a lost position rebuilds the filter after the feed started again, and a feed
 * behind max-lag stops the filter rejecting unless it keeps rejecting. The feed is scripted by the test; the
 * filter and its "table" (the key source's rows) are real.
 */
class FilterFeedTest {

    private static final Instant START = Instant.parse("2026-11-29T10:00:00Z");

    private final MovableClock clock = new MovableClock(START);
    private final Set<Long> rows = ConcurrentHashMap.newKeySet();
    private final List<ScriptedFeed> started = new ArrayList<>();
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    @Test
    void aDeleteCommittedAfterTheFilterWasBuiltTakesTheKeyOut() {
        NamedBloomFilter filter = loadedCountingFilter();
        FilterFeed feed = follow(filter, WhenBehind.PASS);
        feed.accept(batch()); // the feed sees the filter's build at START

        clock.advance(Duration.ofSeconds(10));
        rows.remove(5L);
        feed.accept(batch(FeedChange.deleted(5L, START.plusSeconds(9))));

        assertThat(feed.counts().removed()).isEqualTo(1);
        assertThat(LongStream.rangeClosed(1, 100).filter(id -> id != 5 && !filter.mightContain(id)))
                .as("rows that exist, rejected").isEmpty();
    }

    @Test
    void aDeleteCommittedBeforeARebuildThatAlreadyDroppedItsKeyLeavesTheCountsAlone() {
        NamedBloomFilter filter = loadedCountingFilter();
        FilterFeed feed = follow(filter, WhenBehind.PASS);
        feed.accept(batch());

        clock.advance(Duration.ofSeconds(10));
        rows.remove(5L); // committed at START + 9s ...
        filter.rebuild(); // ... read by a rebuild at START + 10s, which never counts key 5
        clock.advance(Duration.ofSeconds(5));
        feed.accept(batch(FeedChange.deleted(5L, START.plusSeconds(9)))); // ... and delivered after it

        assertThat(feed.counts().removed()).as("removed from counts that are other keys'").isZero();
        assertThat(feed.counts().deletesKept()).isEqualTo(1);
    }

    @Test
    void aPlainFilterKeepsTheKeysOfDeletedRowsUntilItsNextRebuild() {
        NamedBloomFilter filter = loadedFilter(FilterType.BLOOM);
        FilterFeed feed = follow(filter, WhenBehind.PASS);
        feed.accept(batch());
        clock.advance(Duration.ofSeconds(10));

        feed.accept(batch(FeedChange.deleted(5L, START.plusSeconds(9)), FeedChange.added(101L, START.plusSeconds(9))));

        assertThat(feed.counts().deletesKept()).isEqualTo(1);
        assertThat(filter.mightContain(5L)).isTrue();
        assertThat(filter.mightContain(101L)).isTrue();
    }

    @Test
    void aLostPositionStartsTheFeedAgainFromThePresentThenRebuildsTheFilter() {
        NamedBloomFilter filter = loadedCountingFilter();
        FilterFeed feed = follow(filter, WhenBehind.PASS);
        feed.accept(batch());
        rows.add(101L); // written while the feed could not see it

        feed.lost("replication slot bloom_guard_ids was dropped");

        await("the filter rebuilt").until(() -> filter.state() == FilterState.READY && filter.mightContain(101L));
        assertThat(started).hasSize(2);
        assertThat(started.get(1).from).as("the new feed starts from the present").isNull();
        assertThat(started.get(1).startedBeforeRebuild).as("started before the rebuild read its rows").isTrue();
        assertThat(feed.counts().lost()).isEqualTo(1);
    }

    @Test
    void aFeedBehindMaxLagStopsTheFilterRejectingUnlessItKeepsRejecting() {
        NamedBloomFilter passing = loadedCountingFilter();
        FilterFeed passes = follow(passing, WhenBehind.PASS);
        assertThat(passing.trustedToReject()).as("before the feed first caught up").isFalse();
        passes.accept(batch());
        assertThat(passing.trustedToReject()).isTrue();

        clock.advance(Duration.ofSeconds(31));

        assertThat(passes.behind()).isTrue();
        assertThat(passing.trustedToReject()).isFalse();
        NamedBloomFilter keeping = loadedCountingFilter();
        follow(keeping, WhenBehind.KEEP);
        assertThat(keeping.trustedToReject()).isTrue();
    }

    private NamedBloomFilter loadedCountingFilter() {
        return loadedFilter(FilterType.COUNTING);
    }

    private NamedBloomFilter loadedFilter(FilterType type) {
        LongStream.rangeClosed(1, 100).forEach(rows::add);
        FilterSpec spec = FilterSpec.builder("ids").expectedSize(1000).errorRate(0.01).type(type).build();
        FilterSizing sizing = FilterSizing.of(1000, 0.01);
        RebuildableLocalFilter backend = (type == FilterType.COUNTING)
                ? new RebuildableLocalFilter(sizing, Duration.ZERO, LocalCountingFilter::create)
                : new RebuildableLocalFilter(sizing, Duration.ZERO);
        NamedBloomFilter filter = new NamedBloomFilter(spec, backend, FilterState.LOADING);
        filter.keySource(batches -> {
            List<Object> keys = new ArrayList<>(rows);
            batches.accept(keys);
            return keys.size();
        });
        rows.forEach(filter::put);
        filter.finishLoading();
        return filter;
    }

    private FilterFeed follow(NamedBloomFilter filter, WhenBehind whenBehind) {
        FeedSettings settings = new FeedSettings("scripted", Duration.ofSeconds(30), whenBehind,
                new FeedSettings.Jdbc(null, Duration.ofSeconds(1), Duration.ofSeconds(30)),
                new FeedSettings.Postgres(null, "id", null, null, null, null, null, Map.of()));
        FilterFeed feed = new FilterFeed(filter, () -> new ScriptedFeed(filter), settings, null, scheduler, clock);
        feed.start();
        return feed;
    }

    private FeedBatch batch(FeedChange... changes) {
        return new FeedBatch(List.of(changes), clock.instant(), "position-" + clock.instant());
    }

    /** A feed whose batches the test hands over itself. */
    private final class ScriptedFeed implements ChangeFeed {

        private final NamedBloomFilter filter;
        @Nullable String from;
        boolean startedBeforeRebuild;

        ScriptedFeed(NamedBloomFilter filter) {
            this.filter = filter;
        }

        @Override
        public void start(@Nullable String from, FeedSink sink) {
            this.from = from;
            this.startedBeforeRebuild = filter.state() == FilterState.READY; // not yet marked for its rebuild
            started.add(this);
        }

        @Override
        public String description() {
            return "scripted";
        }

        @Override
        public void close() {
        }
    }

}
