package io.bloomguard.redis.engine;

import io.bloomguard.core.BlockedBloomLayout;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.KeyFeed;
import io.bloomguard.redis.kind.BitmapCodec;
import io.bloomguard.redis.kind.LocalWords;
import io.bloomguard.redis.kind.RedisCaller;
import io.bloomguard.redis.kind.RedisFilterIdentity;
import io.bloomguard.redis.kind.RedisFilterKeys;
import io.bloomguard.redis.kind.RedisScripts;
import io.bloomguard.redis.kind.ScriptCall;
import io.bloomguard.redis.kind.ServerBuild;
import io.bloomguard.redis.port.LuaScript;
import io.bloomguard.redis.port.RedisPort;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Moves a filter's whole generations in and out of Redis: announces a new one (from then on every add reaches it
 * too), uploads the bits built for it, swaps it in as the live one, and reads a live one back. The caller holds
 * the {@link RedisLoadLock} throughout a build.
 *
 * <p>Bits travel in chunks of {@value #CHUNK_WORDS} words (4 MiB), so a large filter is never copied whole.
 */
final class RedisGenerations {

    private static final Log logger = LogFactory.getLog(RedisGenerations.class);

    /** Words per {@code SETRANGE} / {@code GETRANGE} when moving whole bitmaps: 4 MiB. */
    private static final int CHUNK_WORDS = 1 << 19;

    /** Keys per insert of a build inside Redis ({@link #fill}). */
    private static final int INSERT_BATCH = 1000;

    /** {@code SETRANGE} commands (or inserts) in flight at once during an upload. */
    private static final int UPLOADS_IN_FLIGHT = 4;

    /** Expiry of an upload, renewed with each chunk: a loader that dies part way leaves it behind. */
    private static final Duration UPLOAD_TTL = Duration.ofHours(1);

    private final String filterName;
    private final RedisFilterKeys keys;
    private final RedisCommands commands;
    private final Duration timeout;
    private final String owner;

    RedisGenerations(String filterName, RedisFilterKeys keys, RedisCommands commands, Duration timeout, String owner) {
        this.filterName = filterName;
        this.keys = keys;
        this.commands = commands;
        this.timeout = timeout;
        this.owner = owner;
    }

    /**
     * Creates generation {@code target} beside the live one in every shard; adds reach both from then on.
     *
     * @return per shard, the stale marks counted so far, for {@link #swap}
     */
    long[] begin(RedisFilterIdentity target, FilterSizing sizing, long fence) {
        String epoch = newEpoch();
        long[] staleMarks = new long[target.shards()];
        ServerBuild inRedis = target.layout().serverBuild();
        for (int shard = 0; shard < target.shards(); shard++) {
            long lastBit = target.blocksIn(shard) * target.bytesPerBlock() * Byte.SIZE - 1;
            List<String> keyNames = List.of(keys.meta(shard), keys.next(shard, target));
            ScriptCall begin = (inRedis != null) ? inRedis.begin(keyNames.get(0), keyNames.get(1), target, sizing,
                    epoch, fence) : new ScriptCall(RedisScripts.BEGIN, keyNames, List.of(target.fingerprint(),
                            Long.toString(lastBit), epoch, Long.toString(fence)), List.of());
            staleMarks[shard] = (Long) commands.call(port -> port.eval(begin.script(), begin.keys(), begin.args()),
                    timeout);
            if (staleMarks[shard] < 0) {
                throw fencedOut(shard);
            }
        }
        return staleMarks;
    }

    /**
     * Uploads the bits chunk by chunk, each copied out of where they were built only when it is sent.
     *
     * @return per shard, how many bits are set in what was uploaded, for {@link #swap} to check the upload against
     */
    long[] upload(RedisFilterIdentity target, LocalWords.Copier bits) {
        List<CompletableFuture<?>> inFlight = new ArrayList<>();
        long[] chunk = new long[CHUNK_WORDS];
        long[] setBits = new long[target.shards()];
        for (int shard = 0; shard < target.shards(); shard++) {
            String key = keys.upload(shard, target, owner);
            // Bits a failed attempt of this loader left would count as uploaded.
            commands.call(port -> port.delete(key), timeout);
            int firstWord = Math.toIntExact(target.firstBlockOf(shard) * target.wordsPerBlock());
            int shardWords = Math.toIntExact(target.blocksIn(shard) * target.wordsPerBlock());
            for (int done = 0; done < shardWords; done += CHUNK_WORDS) {
                int count = Math.min(CHUNK_WORDS, shardWords - done);
                bits.copy(firstWord + done, chunk, count);
                if (BitmapCodec.allZero(chunk, 0, count)) {
                    continue; // nothing to OR in
                }
                for (int i = 0; i < count; i++) {
                    setBits[shard] += Long.bitCount(chunk[i]);
                }
                byte[] bytes = target.layout().toRedisBytes(chunk, 0, count);
                long offset = (long) done * 8;
                inFlight.add(commands.send(port -> port.setRange(key, offset, bytes)));
                // With each chunk, not once the shard is up: a loader that dies part way (up to 512 MiB a shard
                // in) leaves its upload behind. Same connection, so it follows the SETRANGE that creates the key.
                inFlight.add(commands.send(port -> port.expire(key, UPLOAD_TTL.toMillis())));
                if (inFlight.size() >= 2 * UPLOADS_IN_FLIGHT) {
                    commands.awaitAll(inFlight, timeout);
                }
            }
            commands.awaitAll(inFlight, timeout);
        }
        return setBits;
    }

    /**
     * Sends the key source's keys into generation {@code target}, begun and built inside Redis (its kind's
     * {@link ServerBuild}), a batch at a time with a few batches in flight.
     *
     * @return per shard, how many keys were new to it, for {@link #swap} to check the generation against; and the
     * keys read, at index {@code shards}
     * @throws IllegalStateException when the generation is gone from Redis part way (evicted, flushed)
     */
    long[] fill(RedisFilterIdentity target, KeyFeed source) {
        ServerBuild inRedis = java.util.Objects.requireNonNull(target.layout().serverBuild());
        String next = keys.next(0, target);
        List<CompletableFuture<Long>> inFlight = new ArrayList<>();
        long[] found = new long[2];
        found[1] = source.feed(batch -> {
            for (int from = 0; from < batch.size(); from += INSERT_BATCH) {
                List<Object> part = List.copyOf(batch.subList(from, Math.min(batch.size(), from + INSERT_BATCH)));
                inFlight.add(commands.send(port -> inRedis.insert(port, next, part)));
                if (inFlight.size() >= UPLOADS_IN_FLIGHT) {
                    found[0] += inserted(inFlight);
                }
            }
        });
        found[0] += inserted(inFlight);
        return found;
    }

    private long inserted(List<CompletableFuture<Long>> inFlight) {
        long added = 0;
        for (CompletableFuture<Long> reply : inFlight) {
            long answer = commands.await(reply, timeout);
            if (answer < 0) {
                throw new IllegalStateException("Filter '" + filterName + "': the generation being built is gone from"
                        + " Redis (flushed, evicted or deleted); it was not swapped in");
            }
            added += answer;
        }
        inFlight.clear();
        return added;
    }

    /**
     * Makes {@code target} the live generation, shard 0 last, so that instances (which read shard 0's metadata)
     * see it only once every shard has it; drops the shards of a previous generation that had more.
     *
     * @param built size the bits were built for; its expected size and error rate go into the metadata
     * @param previousLayers layers of {@code previousLive} when the build began (1 unless it grows by layers)
     * @param staleMarks what {@link #begin} returned: the stale mark is cleared only if no mark was made since
     * @param uploadedBits what {@link #upload} returned: a shard whose upload holds fewer bits is not swapped
     * @return whether the filter is still marked stale: an instance marked it during the build, for keys the
     * build's read of the key source may have missed
     * @throws IllegalStateException when an upload is gone or incomplete (evicted, or lost in a failover): the
     * build failed, and the live generation is left as it was
     */
    boolean swap(RedisFilterIdentity target, FilterSizing built, @Nullable RedisFilterIdentity previousLive,
            int previousLayers, long[] staleMarks, long[] uploadedBits, long fence) {
        long[] leftToMerge = uploadedBits;
        // A generation built inside Redis has no upload: its own FINISH checks it holds what the build put in.
        ServerBuild inRedis = target.layout().serverBuild();
        if (inRedis == null && target.layout().mergesUploadBeforeSwap()) {
            mergeUploads(target, uploadedBits);
            leftToMerge = new long[target.shards()]; // merged and deleted: FINISH finds no upload, and ORs nothing
        }
        else if (inRedis == null && target.shards() > 1) {
            // Shards are swapped one at a time: find a lost upload before any is, not after some were.
            for (int shard = 0; shard < target.shards(); shard++) {
                String upload = keys.upload(shard, target, owner);
                long found = commands.call(port -> port.bitCount(upload), timeout);
                if (found != uploadedBits[shard]) {
                    throw uploadLost(shard, uploadedBits[shard], found);
                }
            }
        }
        String loadedAt = Instant.now().toString();
        String epoch = newEpoch();
        boolean stillStale = false;
        for (int shard = target.shards() - 1; shard >= 0; shard--) {
            String oldLive = (previousLive != null && shard < previousLive.shards()) ? keys.bits(shard, previousLive)
                    : keys.bits(shard, target);
            List<String> keyNames = new ArrayList<>(List.of(keys.meta(shard), keys.next(shard, target),
                    keys.upload(shard, target, owner), keys.bits(shard, target), oldLive));
            if (previousLive != null) {
                keyNames.addAll(previousLive.layout().extraKeys(keys, previousLive, previousLayers));
            }
            List<String> args = List.of(target.fingerprint(), Long.toString(target.blockCount() * BlockedBloomLayout.BLOCK_BITS),
                    Integer.toString(target.hashCount()), Integer.toString(target.seed()),
                    Integer.toString(target.layoutVersion()), Integer.toString(target.shards()),
                    Long.toString(built.expectedSize()), Double.toString(built.errorRate()), loadedAt,
                    Long.toString(staleMarks[shard]), Long.toString(leftToMerge[shard]), target.type(),
                    target.layered() ? "1" : "0", keys.adds(shard), epoch, Long.toString(fence));
            LuaScript finish = (inRedis != null) ? inRedis.finish() : RedisScripts.FINISH;
            long swapped = (Long) commands.call(port -> port.eval(finish, keyNames, args), timeout);
            if (swapped == -1) {
                throw uploadLost(shard, uploadedBits[shard], -1);
            }
            if (swapped == -3) {
                throw fencedOut(shard);
            }
            stillStale |= swapped == 2;
            if (swapped == 0) {
                logger.warn("Filter '" + filterName + "': shard " + shard + " was swapped by another loader first;"
                        + " keeping its generation");
            }
        }
        if (previousLive != null && previousLive.shards() > target.shards()) {
            for (int shard = target.shards(); shard < previousLive.shards(); shard++) {
                String bitmap = keys.bits(shard, previousLive);
                String meta = keys.meta(shard);
                commands.call(port -> port.delete(bitmap), timeout);
                commands.call(port -> port.delete(meta), timeout);
            }
        }
        return stillStale;
    }

    /**
     * A build epoch no build of this filter has used: random, so that a filter stored anew (after a {@code FLUSHALL})
     * does not count up to an epoch an instance still holds for a key it put before.
     */
    private static String newEpoch() {
        long epoch;
        do {
            epoch = java.util.concurrent.ThreadLocalRandom.current().nextLong();
        }
        while (epoch == 0); // what a filter stored before epochs were recorded reads as
        return Long.toString(epoch);
    }

    /** Deletes the bitmaps of a generation that was begun and will not be swapped in: a build replaced it. */
    void discardNext(RedisFilterIdentity abandoned) {
        for (int shard = 0; shard < abandoned.shards(); shard++) {
            String bitmap = keys.next(shard, abandoned);
            commands.call(port -> port.delete(bitmap), timeout);
        }
    }

    /** Merges each shard's upload into its next generation, as the kind does (a counting filter adds counters). */
    private void mergeUploads(RedisFilterIdentity target, long[] uploadedBits) {
        RedisCaller via = new RedisCaller() {
            @Override
            public <T> T call(Function<RedisPort, CompletableFuture<T>> command) {
                return commands.call(command, timeout);
            }
        };
        for (int shard = 0; shard < target.shards(); shard++) {
            long merged = target.kind().mergeUpload(via, keys.next(shard, target), keys.upload(shard, target, owner),
                    target.blocksIn(shard) * target.bytesPerBlock());
            if (merged < 0) {
                throw new IllegalStateException("Filter '" + filterName + "': the generation being built for shard "
                        + shard + " is gone from Redis (flushed, evicted or deleted); it was not swapped in");
            }
            if (merged != uploadedBits[shard]) {
                // Counts merged so far stay in the next generation: too high, which only keeps keys in.
                throw uploadLost(shard, uploadedBits[shard], merged);
            }
        }
    }

    private IllegalStateException fencedOut(int shard) {
        return new IllegalStateException("Filter '" + filterName + "': this instance's load lock expired during the"
                + " build and another instance has begun building shard " + shard + " since; this build was not"
                + " swapped in (raise bloom-guard.redis.lock-ttl if builds pause that long)");
    }

    private IllegalStateException uploadLost(int shard, long uploaded, long found) {
        return new IllegalStateException("Filter '" + filterName + "': the bits uploaded for shard " + shard + " are"
                + " gone or incomplete in Redis (" + uploaded + " bits set uploaded, " + (found < 0 ? "fewer" : found)
                + " found: evicted, or lost in a failover); the new generation was not swapped in");
    }

    /** The bits (or counters) of generation {@code live} as 64-bit words, read chunk by chunk. */
    long[] download(RedisFilterIdentity live) {
        long[] words = new long[Math.toIntExact(live.blockCount() * live.wordsPerBlock())];
        for (int shard = 0; shard < live.shards(); shard++) {
            int firstWord = Math.toIntExact(live.firstBlockOf(shard) * live.wordsPerBlock());
            int shardWords = Math.toIntExact(live.blocksIn(shard) * live.wordsPerBlock());
            String key = keys.bits(shard, live);
            for (int done = 0; done < shardWords; done += CHUNK_WORDS) {
                int count = Math.min(CHUNK_WORDS, shardWords - done);
                long start = (long) done * 8;
                byte[] bytes = commands.call(port -> port.getRange(key, start, start + count * 8L - 1), timeout);
                if (bytes.length != count * 8) {
                    throw new IllegalStateException("Filter '" + filterName + "': bitmap " + key
                            + " disappeared during export");
                }
                live.layout().fromRedisBytes(bytes, words, firstWord + done);
            }
        }
        return words;
    }
}
