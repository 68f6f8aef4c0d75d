package io.bloomguard.registry;

import io.bloomguard.core.CuckooLayout;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.NearCopyMode;
import org.jspecify.annotations.Nullable;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a {@link FilterSpec} must hold whatever set it, properties or a {@link FilterSpecCustomizer}: each rule
 * broken is refused with the property it corresponds to and what to set instead. Limits that depend on a backend's
 * implementation or on the heap are checked where the backends are chosen.
 */
final class FilterSpecRules {

    private static final Pattern NAME = Pattern.compile("[a-z0-9-]+");

    /** String literals, quoted names and comments of a query: words inside them are no SQL. */
    private static final Pattern NOT_SQL = Pattern.compile("'(?:[^']|'')*'|\"[^\"]*\"|--[^\n]*|/\\*.*?\\*/",
            Pattern.DOTALL);

    /** What makes a query yield a key once for many rows. */
    private static final Pattern DEDUPLICATES = Pattern.compile("\\b(DISTINCT|GROUP\\s+BY|UNION(?!\\s+ALL\\b))\\b",
            Pattern.CASE_INSENSITIVE);

    /** Most shards of one filter: one per Redis Cluster hash slot. */
    private static final int MAX_SHARDS = 16384;

    private FilterSpecRules() {
    }

    static void check(FilterSpec spec) {
        if (!NAME.matcher(spec.name()).matches()) {
            throw new InvalidFilterSpecException(spec.name(), "", spec.name(),
                    "a filter name uses lowercase letters, digits and '-' only (e.g. 'user-ids')");
        }
        FilterSizing sizing = size(spec);
        FilterSpec.Sizing section = spec.sizing();
        if (section.type().removable() && section.growth() == GrowthPolicy.SCALE) {
            throw new InvalidFilterSpecException(spec.name(), "growth", "scale", "a " + typeName(section.type())
                    + " filter cannot grow by layers, because a remove could not tell which layer holds the key's "
                    + (section.type() == FilterType.CUCKOO ? "fingerprint" : "counts") + ": use growth: rebuild"
                    + " (a larger filter rebuilt from the key source) or none for filter '" + spec.name()
                    + "', or type: bloom");
        }
        if (section.type() == FilterType.CUCKOO && section.errorRate() < CuckooLayout.MIN_ERROR_RATE) {
            throw new InvalidFilterSpecException(spec.name(), "error-rate", section.errorRate(), "at least "
                    + CuckooLayout.MIN_ERROR_RATE + " for a cuckoo filter, whose fingerprints are at most "
                    + CuckooLayout.MAX_FINGERPRINT_BITS + " bits; or type: counting");
        }
        if (section.type() == FilterType.CUCKOO && spec.backend() instanceof FilterSpec.Redis redis
                && redis.kind() == RedisFilterKind.BITMAP) {
            throw new InvalidFilterSpecException(spec.name(), "type", "cuckoo", "type: cuckoo on the redis backend"
                    + " is the server's cuckoo filter, CF.*: set redis.kind: native (or auto); or use backend: local,"
                    + " or type: counting on redis");
        }
        if (spec.backend() instanceof FilterSpec.Redis redis) {
            long maxShards = Math.min(sizing.blockCount(), MAX_SHARDS);
            if (redis.shards() < 1 || redis.shards() > maxShards) {
                throw new InvalidFilterSpecException(spec.name(), "redis.shards", redis.shards(),
                        "a whole number from 1 to " + maxShards
                                + " (each shard holds at least one 512-bit block of this filter)");
            }
            if (redis.kind() != RedisFilterKind.BITMAP) {
                checkNative(spec, redis);
            }
            if (redis.key() != null) {
                checkForeign(spec, redis);
            }
            else if (section.growth() == GrowthPolicy.SCALE && redis.shards() != 1) {
                throw new InvalidFilterSpecException(spec.name(), "redis.shards", redis.shards(), "a filter that"
                        + " grows by layers (growth: scale) keeps its layers in one hash slot, so it is not split: set"
                        + " it to 1, or use growth: rebuild");
            }
        }
        checkLifecycle(spec);
    }

    /** What the server's own filter, or one that may be (auto), cannot be: split, copied, or a counting filter. */
    private static void checkNative(FilterSpec spec, FilterSpec.Redis redis) {
        boolean auto = redis.kind() == RedisFilterKind.AUTO;
        String native_ = "filter '" + spec.name() + "' " + (auto ? "may be" : "is") + " the server's own filter"
                + " (redis.kind: " + (auto ? "auto" : "native") + ")";
        if (spec.sizing().type() == FilterType.COUNTING) {
            throw new InvalidFilterSpecException(spec.name(), "type", "counting", "type: bloom (BF.*) or cuckoo (CF.*,"
                    + " which removes keys), since " + native_ + "; for a counting filter use redis.kind: bitmap");
        }
        if (redis.shards() != 1) {
            throw new InvalidFilterSpecException(spec.name(), "redis.shards", redis.shards(), "1, since " + native_
                    + ", one key on one node; it scales past its expected size by itself");
        }
        if (redis.nearCopy() != NearCopyMode.OFF) {
            throw new InvalidFilterSpecException(spec.name(), "redis.near-copy", redis.nearCopy().name()
                    .toLowerCase(java.util.Locale.ROOT), "off, since " + native_ + ", whose bits are in the module's"
                            + " own layout, which no near copy reads; or use redis.kind: bitmap");
        }
    }

    /** What a filter on a key another program owns cannot be: anything but the server's, or built here. */
    private static void checkForeign(FilterSpec spec, FilterSpec.Redis redis) {
        String key = redis.key();
        if (key == null || key.isBlank()) {
            throw new InvalidFilterSpecException(spec.name(), "redis.key", String.valueOf(key), "the key of a filter"
                    + " of the server's that another program created (e.g. legacy:users:bf), or leave it out");
        }
        String owned = "filter '" + spec.name() + "' guards key '" + key + "', which another program creates and"
                + " fills";
        if (redis.kind() != RedisFilterKind.NATIVE) {
            throw new InvalidFilterSpecException(spec.name(), "redis.kind", typeName(redis.kind()), "native, since "
                    + owned + ": a filter of the server's (BF.*, or CF.* with type: cuckoo)");
        }
        if (spec.sizing().growth() == GrowthPolicy.REBUILD) {
            throw new InvalidFilterSpecException(spec.name(), "growth", "rebuild", "none, since " + owned + ", which"
                    + " bloom-guard never rebuilds (the server scales it past its size)");
        }
        FilterSpec.Lifecycle lifecycle = spec.lifecycle();
        if (lifecycle.preloadSql() != null) {
            throw new InvalidFilterSpecException(spec.name(), "preload.sql", lifecycle.preloadSql(), "none, since "
                    + owned + ": bloom-guard adds only the keys of the application's own writes");
        }
        if (lifecycle.rebuildCron() != null) {
            throw new InvalidFilterSpecException(spec.name(), "rebuild.cron", lifecycle.rebuildCron(), "none, since "
                    + owned + ", which bloom-guard never rebuilds");
        }
    }

    private static String typeName(Enum<?> type) {
        return type.name().toLowerCase(java.util.Locale.ROOT);
    }

    /**
     * What in {@code sql} yields a key once for rows that share it ({@code DISTINCT}, {@code GROUP BY},
     * {@code UNION} without {@code ALL}), as written; {@code null} for none.
     */
    static @Nullable String deduplication(String sql) {
        Matcher matcher = DEDUPLICATES.matcher(NOT_SQL.matcher(sql).replaceAll(" "));
        return matcher.find() ? matcher.group(1).replaceAll("\\s+", " ") : null;
    }

    private static FilterSizing size(FilterSpec spec) {
        long expectedSize = spec.sizing().expectedSize();
        double errorRate = spec.sizing().errorRate();
        if (expectedSize <= 0) {
            throw new InvalidFilterSpecException(spec.name(), "expected-size", expectedSize,
                    "a whole number of keys, at least 1");
        }
        if (!(errorRate > 0.0 && errorRate < 1.0)) {
            throw new InvalidFilterSpecException(spec.name(), "error-rate", errorRate,
                    "a probability greater than 0 and less than 1, e.g. 0.01 for 1%");
        }
        try {
            return FilterSizing.of(expectedSize, errorRate);
        }
        catch (IllegalArgumentException ex) {
            throw new InvalidFilterSpecException(spec.name(), "expected-size", expectedSize, ex.getMessage());
        }
    }

    private static void checkLifecycle(FilterSpec spec) {
        FilterSpec.Lifecycle lifecycle = spec.lifecycle();
        String sql = lifecycle.preloadSql();
        if (sql != null && sql.isBlank()) {
            throw new InvalidFilterSpecException(spec.name(), "preload.sql", "",
                    "a query whose first column yields the keys, e.g. SELECT id FROM users; or leave it out");
        }
        if (sql != null && spec.sizing().type().removable()) {
            String dedup = deduplication(sql);
            if (dedup != null) {
                throw new InvalidFilterSpecException(spec.name(), "preload.sql", sql, "a query that yields one key per"
                        + " row, duplicates included, without " + dedup + ": filter '" + spec.name() + "' is a"
                        + " " + spec.sizing().type().name().toLowerCase(java.util.Locale.ROOT) + " filter, which"
                        + " counts a key once per row read, and one delete of a row whose key"
                        + " other rows share would take the key out for all of them (e.g. SELECT customer_id FROM"
                        + " orders, not SELECT DISTINCT customer_id FROM orders)");
            }
        }
        double share = lifecycle.rebuildHoldBelow();
        if (!(share >= 0 && share <= 1)) {
            throw new InvalidFilterSpecException(spec.name(), "rebuild.hold-below", share, "a share from 0 to 1 of"
                    + " the live filter's keys, e.g. 0.5 (0 swaps in every rebuild, however few keys it read)");
        }
        if (!spec.writes().putsOnly()) {
            return;
        }
        if (spec.sizing().growth() == GrowthPolicy.REBUILD) {
            throw new InvalidFilterSpecException(spec.name(), "growth", "rebuild", "filter '" + spec.name() + "' is"
                    + " filled by puts alone (puts-only: true), so it has no key source to rebuild from, and a"
                    + " rebuild would empty it: use growth: scale (it adds layers) or none");
        }
        if (sql != null) {
            throw new InvalidFilterSpecException(spec.name(), "preload.sql", sql, "filter '" + spec.name() + "' is"
                    + " declared filled by puts alone (puts-only: true), so it has no key source: leave preload.sql"
                    + " out, or remove puts-only if the query yields every key");
        }
        if (lifecycle.rebuildCron() != null) {
            throw new InvalidFilterSpecException(spec.name(), "rebuild.cron", lifecycle.rebuildCron(), "filter '"
                    + spec.name() + "' is filled by puts alone (puts-only: true): a rebuild would empty it, so it"
                    + " has no schedule; leave rebuild.cron out");
        }
    }
}
