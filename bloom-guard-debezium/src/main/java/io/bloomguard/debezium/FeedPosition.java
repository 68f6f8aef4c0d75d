package io.bloomguard.debezium;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.jspecify.annotations.Nullable;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where the feed resumes: a Debezium source record's partition and offset, as the JSON text the runner saves
 * ({@code {"partition":{"server":"..."},"offset":{"lsn":...,"txId":...,"ts_usec":...}}}).
 *
 * @param partition the record's source partition
 * @param offset the record's source offset: the connector's {@code lsn}, {@code lsn_proc}, {@code lsn_commit}, ...
 */
record FeedPosition(Map<String, Object> partition, Map<String, Object> offset) {

    /** Numbers come back as {@code Long}, as the connector casts them. */
    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.USE_LONG_FOR_INTS);

    private static final TypeReference<Map<String, Map<String, Object>>> TYPE = new TypeReference<>() {
    };

    /** The offset keys that hold a WAL position, the slot's confirmed position is one of them at most. */
    private static final String[] LSN_KEYS = { "lsn", "lsn_proc", "lsn_commit" };

    FeedPosition {
        partition = Map.copyOf(partition);
        offset = Map.copyOf(offset);
    }

    static FeedPosition of(Map<String, ?> partition, Map<String, ?> offset) {
        return new FeedPosition(new LinkedHashMap<>(partition), new LinkedHashMap<>(offset));
    }

    /** Reads what {@link #toJson()} wrote; an {@link IllegalArgumentException} for anything else. */
    static FeedPosition parse(String json) {
        try {
            Map<String, Map<String, Object>> read = JSON.readValue(json, TYPE);
            Map<String, Object> partition = read.get("partition");
            Map<String, Object> offset = read.get("offset");
            if (partition == null || offset == null) {
                throw new IllegalArgumentException("Not a PostgreSQL feed position (no partition or offset): " + json);
            }
            return new FeedPosition(partition, offset);
        }
        catch (JsonProcessingException ex) {
            throw new IllegalArgumentException("Not a PostgreSQL feed position: " + json, ex);
        }
    }

    String toJson() {
        try {
            return JSON.writeValueAsString(Map.of("partition", this.partition, "offset", this.offset));
        }
        catch (JsonProcessingException ex) {
            throw new IllegalStateException("Cannot write the feed position " + this, ex);
        }
    }

    /** The furthest WAL position the offset names: a slot confirmed past it has let go of changes after it. */
    @Nullable Long highestLsn() {
        Long highest = null;
        for (String key : LSN_KEYS) {
            if (this.offset.get(key) instanceof Number lsn && (highest == null || lsn.longValue() > highest)) {
                highest = lsn.longValue();
            }
        }
        return highest;
    }

    /** The commit time of the last change the offset covers ({@code ts_usec}), when it says. */
    @Nullable Instant committedAt() {
        if (this.offset.get("ts_usec") instanceof Number micros) {
            long value = micros.longValue();
            return Instant.ofEpochSecond(value / 1_000_000, (value % 1_000_000) * 1_000);
        }
        return null;
    }
}
