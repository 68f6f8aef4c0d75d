package io.bloomguard.redis.engine;

import io.bloomguard.redis.kind.RedisFilterIdentity;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * Reads a {@link RedisNearCopy}'s build whole from Redis, in the background and one read at a time, a chunk of
 * {@value #CHUNK_WORDS} words (1 MiB) per {@code GETRANGE}; a read stops at its next chunk once another build is the
 * copy's. The copy answers once its first read is done, and is read again every {@value #REFRESHES_PER_READ} refresh
 * intervals; with a {@link RedisCopyInStep}, the read is where the copy gets in step.
 *
 * <p>Usage: {@code wholeRead.start(view, copiedBuild);}
 */
final class RedisWholeRead {

    private static final Log logger = LogFactory.getLog(RedisWholeRead.class);

    /** Refresh intervals between two whole reads of a build the copy already holds. */
    static final int REFRESHES_PER_READ = 600;

    /** Words per {@code GETRANGE} of a whole read: 1 MiB, short enough not to hold up Redis's other clients. */
    static final int CHUNK_WORDS = 1 << 17;

    private final @Nullable RedisCopyInStep inStep;
    private final String name;
    private final RedisFilterCommands commands;
    private final Executor reads;
    private final long readEveryNanos;
    /** The copy's build now: a read of another one stops. */
    private final Supplier<@Nullable RedisCopiedBuild> copy;
    private final AtomicBoolean reading = new AtomicBoolean();

    /** @param reads where whole reads run, away from the maintenance thread the backend's filters share */
    RedisWholeRead(@Nullable RedisCopyInStep inStep, String name, RedisFilterCommands commands, Executor reads,
            Duration refreshInterval, Supplier<@Nullable RedisCopiedBuild> copy) {
        this.inStep = inStep;
        this.name = name;
        this.commands = commands;
        this.reads = reads;
        this.readEveryNanos = refreshInterval.multipliedBy(REFRESHES_PER_READ).toNanos();
        this.copy = copy;
    }

    void start(RedisFilterView view, RedisCopiedBuild target) {
        if (!reading.compareAndSet(false, true)) {
            return; // one read at a time; a read of an older build stops at its next chunk
        }
        try {
            reads.execute(() -> {
                try {
                    read(view, target);
                }
                finally {
                    reading.set(false);
                }
            });
        }
        catch (RejectedExecutionException ex) {
            reading.set(false); // the backend is closing
        }
    }

    /** Reads the bitmaps of {@code view}'s build whole into {@code target}, a chunk at a time. */
    private void read(RedisFilterView view, RedisCopiedBuild target) {
        long start = System.nanoTime();
        RedisFilterIdentity live = target.identity;
        long bytesRead = 0;
        boolean whole = false;
        if (inStep != null && target.bits.overwrites()) {
            // Counters are written over, not ORed: an add applied before its chunk's older bytes arrive would be
            // lost until the read ends. Out of step meanwhile, the copy answers no absent key.
            target.markOutOfStep();
        }
        int changes = target.changes.get();
        long epoch = (inStep != null) ? inStep.beforeRead(target, payload -> inStep.received(copy.get(), payload)) : -1;
        try {
            for (int part = 0; part < target.parts(); part++) {
                String bitmap = target.bitmap(part);
                long partWords = target.bits.words(part);
                for (long done = 0; done < partWords; done += CHUNK_WORDS) {
                    if (copy.get() != target) {
                        return; // another build went live, or the filter closed
                    }
                    int count = (int) Math.min(CHUNK_WORDS, partWords - done);
                    long from = done * 8;
                    byte[] bytes = commands.call(port -> port.getRange(bitmap, from, from + count * 8L - 1));
                    if (bytes.length != count * 8) {
                        return; // the bitmap is gone: the next refresh sees it
                    }
                    target.bits.readWords(part, Math.toIntExact(done), bytes);
                    bytesRead += bytes.length;
                }
            }
            whole = true;
        }
        catch (RuntimeException ex) {
            logger.debug("Filter '" + name + "': reading the near copy failed; trying again at the next refresh", ex);
            return;
        }
        finally {
            if (!whole) {
                target.readEnds(); // else ended below, or by inStep.afterRead once every change up to the end is in
            }
        }
        if (inStep == null || copy.get() != target) {
            target.readEnds();
        }
        boolean first = !target.answering;
        target.lastRead = Instant.now();
        target.nextRead = System.nanoTime() + readEveryNanos;
        target.answering = true;
        if (inStep != null && copy.get() == target) {
            inStep.afterRead(target, epoch, changes);
        }
        if (first) {
            logger.info("Filter '" + name + "': near copy of " + live.fingerprintWithoutSeed() + "#"
                    + target.buildNumber + " read (" + bytesRead / 1024 + " KiB in "
                    + Duration.ofNanos(System.nanoTime() - start).toMillis() + " ms); keys it holds are answered"
                    + " here from now on");
        }
    }
}
