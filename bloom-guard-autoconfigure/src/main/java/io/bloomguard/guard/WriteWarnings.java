package io.bloomguard.guard;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The warnings about how a {@code @BloomPut} method is written that its calls show, each logged once per method: a
 * put into a shared filter after the row may be committed.
 */
final class WriteWarnings {

    /** The guard's log category: one place to look for, and to configure, what the guard reports. */
    private static final Log logger = LogFactory.getLog(BloomGuardInterceptor.class);

    private final Set<String> reported = ConcurrentHashMap.newKeySet();

    /**
     * With no transaction around the put, whatever the method wrote is committed already: other instances sharing
     * the filter can read the row a moment before its key.
     */
    void outsideTransaction(PutOperation put) {
        reportOnce(put, "no transaction", () -> logger.warn(put.description() + " puts its @BloomPut key into shared"
                + " filter '" + put.filter().name() + "' after its row may be committed, so other instances can read"
                + " the row a moment before its key: no transaction is active where bloom-guard puts it. Make the"
                + " method @Transactional, or put the @BloomPut on the repository method that writes. With"
                + " transactions woven by AspectJ the same applies; a transaction advisor of your own at the lowest"
                + " precedence, declared after bloom-guard's auto-configuration, needs a higher precedence. See"
                + " docs/guard.md, \"The key is in before the commit\"."));
    }

    /** A key into a shared filter that could be put only once its transaction had committed. */
    void keyedAfterCommit(PutOperation put) {
        reportOnce(put, "after commit", () -> logger.warn(put.description() + " puts its @BloomPut key into shared"
                + " filter '" + put.filter().name() + "' only after its transaction has committed (the key was"
                + " null until then: a column the database fills in at the flush), so other instances can read"
                + " the row a moment before its key. Key the @BloomPut on a value known before the commit."));
    }

    private void reportOnce(PutOperation put, String problem, Runnable report) {
        if (reported.add(put.description() + ": " + problem)) {
            report.run();
        }
    }
}
