package io.bloomguard.redis.kind.bf;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.redis.kind.ServerBuild;
import io.bloomguard.redis.kind.ServerKind;
import io.bloomguard.redis.kind.ServerScripts;
import io.bloomguard.redis.port.LuaScript;
import org.jspecify.annotations.Nullable;

import java.util.Map;

/**
 * A Bloom filter of the server's own ({@code BF.*}), one key a generation ({@code redis.kind: native}): checked with
 * {@code BF.EXISTS}, added to with {@code BF.INSERT NOCREATE}, built inside Redis ({@link ServerBuild}), sized
 * from the filter's expected size and error rate ({@code BF.RESERVE}), scaling past them as the server does. Keys are
 * their canonical text, so any client reads the filter with {@code BF.EXISTS}. It cannot remove keys.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class NativeBloomKind extends ServerKind {

    public static final NativeBloomKind INSTANCE = new NativeBloomKind();

    /**
     * {@code BF.RESERVE}'s sub-filters tighten their error rate by half each ({@code EXPANSION} grows their size), so
     * a filter that scaled stays below twice its error rate.
     */
    private static final double SCALED_BOUND = 2;

    /** What {@code BF.INFO}'s Size counts beside a filter's bits: 96 to 102 bytes on RedisBloom 2.6, measured. */
    private static final long HEADER_BYTES = 100;

    /** Bytes of bits below which a few bytes of header make the rate read from Size too rough to judge by. */
    private static final long READABLE_BYTES = 1_000;

    /** How far above the declared rate a rate read from Size may be: the module rounds its sizes. */
    private static final double RATE_SLACK = 1.25;

    private static final ServerScripts SCRIPTS = new ServerScripts(NativeBloomScripts.CHECK,
            NativeBloomScripts.CHECK_ALL, NativeBloomScripts.CARD, NativeBloomScripts.ADD, null);

    /** Reserved for the expected size at the error rate. */
    private static final ServerBuild BUILD = new ServerBuild(NativeBloomScripts.BEGIN, NativeBloomScripts.BUILD_INSERT,
            NativeBloomScripts.FINISH, FilterSizing::expectedSize, sizing -> Double.toString(sizing.errorRate()));

    private NativeBloomKind() {
    }

    @Override
    public String suffix() {
        return ".bf";
    }

    @Override
    public String type() {
        return "bf";
    }

    @Override
    public String readCommand() {
        return "BF.CARD";
    }

    @Override
    public String infoCommand() {
        return "BF.INFO";
    }

    @Override
    public String redisType() {
        return "MBbloom--";
    }

    /**
     * Its first sub-filter's capacity (the one it was reserved with: {@code Capacity} sums the sub-filters added since,
     * each {@code Expansion rate} times the one before), and its error rate: as reported where the server says it
     * (Valkey's {@code Error rate}), else read from its {@code Size} while it is one sub-filter large enough to tell.
     */
    @Override
    public @Nullable String contradiction(Map<String, String> info, FilterSizing declared) {
        long capacity = infoNumber(info.get("Capacity"));
        long filters = Math.max(1, infoNumber(info.get("Number of filters")));
        String expansion = info.getOrDefault("Expansion rate", "");
        boolean scaling = !expansion.isEmpty() && !"0".equals(expansion);
        long first = capacity;
        if (scaling && filters > 1) {
            double rate = Double.parseDouble(expansion);
            first = (rate <= 1) ? capacity / filters
                    : Math.round(capacity * (rate - 1) / (Math.pow(rate, filters) - 1));
        }
        if (first < declared.expectedSize()) {
            return "it was reserved for " + first + " keys (BF.INFO: Capacity " + capacity + " in " + filters
                    + " sub-filters), fewer than its expected-size " + declared.expectedSize();
        }
        double errorRate;
        String source;
        String reported = info.get("Error rate");
        long bitBytes = infoNumber(info.get("Size")) - HEADER_BYTES;
        if (reported != null && !reported.isEmpty()) {
            errorRate = Double.parseDouble(reported);
            source = "BF.INFO: Error rate";
        }
        else if (filters == 1 && bitBytes >= READABLE_BYTES) {
            double bitsPerKey = bitBytes * 8.0 / first;
            // A scaling filter's first sub-filter is reserved at half the rate (the module tightens each by half).
            errorRate = Math.exp(-bitsPerKey * Math.log(2) * Math.log(2)) * (scaling ? 2 : 1);
            source = "from BF.INFO: " + Math.round(bitsPerKey * 10) / 10.0 + " bits a key";
        }
        else {
            return null; // several sub-filters, or too small to tell: the capacity is all that can be read
        }
        if (errorRate > declared.errorRate() * RATE_SLACK) {
            return "its error rate is about " + String.format(java.util.Locale.ROOT, "%.4g", errorRate) + " (" + source
                    + "), above its error-rate " + declared.errorRate();
        }
        return null;
    }

    @Override
    public @Nullable LuaScript foreignRemove() {
        return null;
    }

    @Override
    public ServerScripts scripts() {
        return SCRIPTS;
    }

    @Override
    public ServerBuild serverBuild() {
        return BUILD;
    }

    /**
     * Up to its expected size, the server's first filter: {@code -ln ε / ln²2} bits and {@code ⌈ln 2 · that⌉} hashes a
     * key; past it, the bound of the sub-filters it added.
     */
    @Override
    protected double falsePositiveProbability(long keys, FilterSizing sizing) {
        if (keys > sizing.expectedSize()) {
            return Math.min(1, SCALED_BOUND * sizing.errorRate());
        }
        double bitsPerKey = -Math.log(sizing.errorRate()) / (Math.log(2) * Math.log(2));
        double hashes = Math.ceil(Math.log(2) * bitsPerKey);
        return Math.pow(1 - Math.exp(-hashes * keys / (bitsPerKey * sizing.expectedSize())), hashes);
    }
}
