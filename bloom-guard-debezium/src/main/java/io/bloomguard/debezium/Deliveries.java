package io.bloomguard.debezium;

import io.bloomguard.feed.FeedBatch;
import io.bloomguard.feed.FeedChange;
import io.bloomguard.feed.FeedSink;
import io.debezium.engine.DebeziumEngine.RecordCommitter;
import io.debezium.engine.RecordChangeEvent;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.jspecify.annotations.Nullable;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * Turns each batch of Debezium records into one {@link FeedBatch} and hands it to the sink, across the runs of the
 * engine: it keeps the last position delivered (where the next run starts) and how current the filter is.
 */
final class Deliveries {

    private static final Log logger = LogFactory.getLog(Deliveries.class);

    private static final Duration FIRST_RETRY = Duration.ofMillis(100);

    private static final Duration LAST_RETRY = Duration.ofSeconds(5);

    private final FeedSink sink;

    private final PostgresFeedSettings settings;

    private final String probePrefix;

    private final BooleanSupplier closed;

    private volatile @Nullable FeedPosition lastPosition;

    /** Written by the engine's thread of one run, then of the next. */
    private volatile Instant currentAsOf;

    private volatile int batches;

    Deliveries(FeedSink sink, PostgresFeedSettings settings, String probePrefix, @Nullable FeedPosition from,
            Instant currentAsOf, BooleanSupplier closed) {
        this.sink = sink;
        this.settings = settings;
        this.probePrefix = probePrefix;
        this.lastPosition = from;
        this.currentAsOf = currentAsOf;
        this.closed = closed;
    }

    FeedSink sink() {
        return this.sink;
    }

    /** The position of the last batch the sink accepted, or where the feed started. */
    @Nullable FeedPosition lastPosition() {
        return this.lastPosition;
    }

    /** How many batches the sink accepted so far. */
    int batches() {
        return this.batches;
    }

    /**
     * Debezium's {@code ChangeConsumer}: delivers the batch, then marks its records processed, which lets the engine
     * commit their offsets (and confirm them to the slot). A sink that throws gets the batch again until it takes it
     * or the feed closes; a closed feed marks nothing, so the next start reads the batch again.
     */
    void handleBatch(List<RecordChangeEvent<SourceRecord>> records,
            RecordCommitter<RecordChangeEvent<SourceRecord>> committer) throws InterruptedException {
        if (records.isEmpty()) {
            return;
        }
        List<FeedChange> changes = new ArrayList<>();
        Instant asOf = this.currentAsOf;
        for (RecordChangeEvent<SourceRecord> event : records) {
            Instant stamp = read(event.record(), changes);
            if (stamp != null && stamp.isAfter(asOf)) {
                asOf = stamp;
            }
        }
        SourceRecord last = records.get(records.size() - 1).record();
        FeedPosition position = FeedPosition.of(last.sourcePartition(), last.sourceOffset());
        FeedBatch batch = new FeedBatch(changes, asOf, position.toJson());
        Duration retry = FIRST_RETRY;
        while (true) {
            if (this.closed.getAsBoolean()) {
                return;
            }
            try {
                this.sink.accept(batch);
                break;
            }
            catch (RuntimeException ex) {
                logger.warn("Feed of filter " + this.settings.filter() + ": the filter did not take a batch of "
                        + changes.size() + " changes; delivering it again in " + retry.toMillis() + " ms", ex);
                Thread.sleep(retry.toMillis());
                retry = retry.multipliedBy(2).compareTo(LAST_RETRY) > 0 ? LAST_RETRY : retry.multipliedBy(2);
            }
        }
        this.currentAsOf = asOf;
        this.lastPosition = position;
        this.batches++;
        for (RecordChangeEvent<SourceRecord> event : records) {
            committer.markProcessed(event);
        }
        committer.markBatchFinished();
    }

    /**
     * Adds what one record says to {@code changes}.
     * @return the moment up to which the record proves the feed current: a change's commit time, a probe's sending
     *     time; {@code null} for a heartbeat, which proves nothing
     */
    private @Nullable Instant read(SourceRecord record, List<FeedChange> changes) {
        if (!(record.value() instanceof Struct value) || value.schema().field("op") == null) {
            return null;
        }
        String op = value.getString("op");
        Instant committedAt = commitTime(value);
        switch (op) {
            case "c", "r" -> add(changes, value, "after", committedAt);
            case "u" -> {
                Object before = key(value, "before");
                Object after = key(value, "after");
                // A primary key that changes comes as a delete and a create: an update keeps it. Another key column
                // may have changed unless the old row (REPLICA IDENTITY FULL) says otherwise.
                boolean unchanged = isPrimaryKey(record) || (before != null && before.equals(after));
                // A counting filter counts rows: the row was counted when it came, an unchanged key is not a new one.
                if (!(this.settings.removes() && unchanged)) {
                    add(changes, value, "after", committedAt);
                }
                // The key column changed in place and the old value is known: its row no longer has it.
                if (this.settings.removes() && before != null && !Objects.equals(before, after)) {
                    changes.add(FeedChange.deleted(before, committedAt));
                }
            }
            case "d" -> {
                if (this.settings.removes()) {
                    Object key = key(value, "before");
                    if (key != null) {
                        changes.add(FeedChange.deleted(key, committedAt));
                    }
                    else {
                        logger.warn("Feed of filter " + this.settings.filter() + ": a delete on "
                                + this.settings.table() + " carries no " + this.settings.keyColumn()
                                + " (REPLICA IDENTITY does not include it); the key stays in the filter");
                    }
                }
            }
            case "m" -> {
                return probeTime(value);
            }
            default -> {
                // "t" (truncate): no keys to read; the keys stay until the next rebuild, which is safe.
                logger.info("Feed of filter " + this.settings.filter() + ": ignored a '" + op + "' event on "
                        + this.settings.table());
            }
        }
        return committedAt;
    }

    private void add(List<FeedChange> changes, Struct value, String image, @Nullable Instant committedAt) {
        Object key = key(value, image);
        // A row whose key column is null has no key a lookup could ask for.
        if (key != null) {
            changes.add(FeedChange.added(key, committedAt));
        }
    }

    /** Whether the key column is (part of) the table's primary key, which Debezium's record key holds. */
    private boolean isPrimaryKey(SourceRecord record) {
        return record.key() instanceof Struct key && key.schema().field(this.settings.keyColumn()) != null;
    }

    private @Nullable Object key(Struct value, String image) {
        if (value.schema().field(image) == null || !(value.get(image) instanceof Struct row)) {
            return null;
        }
        Field field = row.schema().field(this.settings.keyColumn());
        return field == null ? null : row.get(field);
    }

    private static @Nullable Instant commitTime(Struct value) {
        if (value.schema().field("source") == null || !(value.get("source") instanceof Struct source)
                || source.schema().field("ts_ms") == null || !(source.get("ts_ms") instanceof Long millis)) {
            return null;
        }
        return Instant.ofEpochMilli(millis);
    }

    /** A probe's sending time, when the message is this feed's probe. */
    private @Nullable Instant probeTime(Struct value) {
        if (value.schema().field("message") == null || !(value.get("message") instanceof Struct message)
                || !this.probePrefix.equals(message.getString("prefix"))) {
            return null;
        }
        Object content = message.get("content");
        byte[] bytes = content instanceof ByteBuffer buffer ? toArray(buffer)
                : content instanceof byte[] array ? array : null;
        if (bytes == null) {
            return null;
        }
        try {
            return Instant.ofEpochMilli(Long.parseLong(new String(bytes, StandardCharsets.UTF_8)));
        }
        catch (NumberFormatException ex) {
            return null;
        }
    }

    private static byte[] toArray(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }
}
