package io.bloomguard.redis.kind.bf;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.redis.kind.ServerBuild;
import io.bloomguard.redis.kind.ServerKind;
import io.bloomguard.redis.kind.ServerScripts;

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
    protected ServerScripts scripts() {
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
