package io.bloomguard.redis.kind.cf;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.redis.kind.ServerBuild;
import io.bloomguard.redis.kind.ServerKind;
import io.bloomguard.redis.kind.ServerScripts;
import io.bloomguard.redis.port.LuaScript;
import org.jspecify.annotations.Nullable;

import java.util.Map;

/**
 * A cuckoo filter of the server's own ({@code CF.*}), one key a generation ({@code type: cuckoo},
 * {@code redis.kind: native}): checked with {@code CF.EXISTS}, added to with {@code CF.ADD} (at most
 * {@value NativeCuckooScripts#COPIES} copies of a key), a key whose rows are proven gone deleted with {@code CF.DEL},
 * built inside Redis.
 *
 * <p>Its fingerprints are 8 bits (RedisBloom's, Redis 8's): a check of an absent key matches one of the
 * {@value #BUCKET_SIZE} · 2 slots of its two buckets with chance {@code 1/256} each, so the false-positive rate at load
 * α is about {@code α · 2b / 256} = α / 64. The filter is reserved for {@code expected-size / min(0.8, 64 · 0.95 ε)}
 * keys (the margin bloom-guard's bitmaps are sized with, {@link FilterSizing#DESIGN_MARGIN}), so that it is at most
 * that full at its expected size: 1.64 slots (bytes) a key at ε = 1%, 16.4 at 0.1%, before the server rounds its
 * buckets up to a power of two. Past its expected size the server adds sub-filters.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class NativeCuckooKind extends ServerKind {

    public static final NativeCuckooKind INSTANCE = new NativeCuckooKind();

    /** Fingerprints a bucket holds: the server's smallest that still fills to 80% or so before an add fails. */
    static final int BUCKET_SIZE = 2;

    /** How full a filter of two-fingerprint buckets fills before adds start to fail and sub-filters are added. */
    private static final double MAX_LOAD = 0.8;

    /** How far above the declared rate the rate of a filter another program created may be: its sizes are rounded. */
    private static final double RATE_SLACK = 1.25;

    private static final ServerScripts SCRIPTS = new ServerScripts(NativeCuckooScripts.CHECK,
            NativeCuckooScripts.CHECK_ALL, NativeCuckooScripts.COUNT, NativeCuckooScripts.ADD,
            NativeCuckooScripts.REMOVE);

    private static final ServerBuild BUILD = new ServerBuild(NativeCuckooScripts.BEGIN, NativeCuckooScripts.BUILD_INSERT,
            NativeCuckooScripts.FINISH, NativeCuckooKind::capacity, sizing -> Integer.toString(BUCKET_SIZE));

    private NativeCuckooKind() {
    }

    /** Keys it is reserved for: the expected size at a load that keeps the false-positive rate at the error rate. */
    static long capacity(FilterSizing sizing) {
        return (long) Math.ceil(sizing.expectedSize() / Math.min(MAX_LOAD,
                64 * FilterSizing.DESIGN_MARGIN * sizing.errorRate()));
    }

    @Override
    public String suffix() {
        return ".cf";
    }

    @Override
    public String type() {
        return "cf";
    }

    @Override
    public String readCommand() {
        return "CF.INFO";
    }

    @Override
    public String infoCommand() {
        return "CF.INFO";
    }

    @Override
    public String redisType() {
        return "MBbloomCF";
    }

    /**
     * Its first sub-filter's room (buckets times the fingerprints a bucket holds), and the rate its 8-bit fingerprints
     * give at the declared expected size: α · 2b / 256 at load α.
     */
    @Override
    public @Nullable String contradiction(Map<String, String> info, FilterSizing declared) {
        long buckets = infoNumber(info.get("Number of buckets"));
        long bucketSize = Math.max(1, infoNumber(info.get("Bucket size")));
        long slots = buckets * bucketSize;
        if (slots < declared.expectedSize()) {
            return "it has room for " + slots + " fingerprints (CF.INFO: " + buckets + " buckets of " + bucketSize
                    + "), fewer than its expected-size " + declared.expectedSize();
        }
        double rate = (double) declared.expectedSize() / slots * 2 * bucketSize / 256.0;
        if (rate > declared.errorRate() * RATE_SLACK) {
            return "at its expected-size " + declared.expectedSize() + " keys, its 8-bit fingerprints in buckets of "
                    + bucketSize + " (CF.INFO: " + buckets + " buckets) pass an absent key about "
                    + String.format(java.util.Locale.ROOT, "%.4g", rate) + " of the time, above its error-rate "
                    + declared.errorRate();
        }
        return null;
    }

    @Override
    public LuaScript foreignRemove() {
        return NativeCuckooScripts.FOREIGN_REMOVE;
    }

    @Override
    public ServerScripts scripts() {
        return SCRIPTS;
    }

    @Override
    public ServerBuild serverBuild() {
        return BUILD;
    }

    /** α / 64 at load α = keys / reserved capacity, α capped at 1 (past it sub-filters keep the load of the first). */
    @Override
    protected double falsePositiveProbability(long keys, FilterSizing sizing) {
        double load = Math.min(1, (double) keys / capacity(sizing));
        return Math.min(1, load * 2 * BUCKET_SIZE / 256.0);
    }
}
