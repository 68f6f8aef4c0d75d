package io.bloomguard.redis.engine;

import io.bloomguard.redis.kind.RedisScripts;
import io.bloomguard.redis.port.LuaScript;
import org.jspecify.annotations.Nullable;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Finds the adds Redis acknowledged to this instance and lost since: a failover to a replica that had not received
 * them, a restart from an RDB or AOF file older than them. Each add script counts the add in the shard's metadata under
 * this instance's record, {@code acks:<instance>.<n>}, in the same step as the bits ({@link RedisScripts#ACKNOWLEDGED});
 * this instance counts the replies. Redis replicates and persists a prefix of what it ran, so a stored count below the
 * replies counted before it was read means adds were lost, however many other instances added since (each counts under
 * its own record). Read this way every refresh interval, a loss is found within one interval of talking to the server
 * that lost it. Other instances' records are watched too: one that goes back lost adds of an instance that may be gone.
 *
 * <p>Exact when replies come back in the order the adds ran, as on the one connection per node of the Lettuce port; a
 * client that spreads adds over pooled connections could, in the instant of a failover, take an add that ran first and
 * was lost for one that ran later and was kept.
 *
 * <p>Which adds were lost: the server's count may include adds it ran after the loss, but those were all acknowledged
 * after the last read that found every add stored; so the lost ones are among the adds numbered above the stored count
 * less those acknowledged since that read, and all of those the replay log holds are written again (a few kept ones
 * with them: writing a key twice changes nothing).
 *
 * <p>After a loss this instance counts under a new record ({@code <n>} + 1): the old one stays behind, so that its
 * count is not mistaken for adds made since. Records of instances silent for a day are deleted
 * ({@link #PRUNE}); each instance stamps its own every {@value #STAMP_EVERY} reads.
 *
 * <p>Usage: {@code commands.eval(script, keys, withRecord(args, acks.record())); acks.acknowledged(meta, record, keys);
 * ... Loss loss = acks.check(metaKeys);}
 */
final class RedisAcknowledgedAdds {

    static final String RECORD_PREFIX = "acks:";
    private static final String STAMP_PREFIX = "acks-seen:";
    /** Stamps the own record once in this many checks: every ten minutes at the default refresh interval. */
    static final int STAMP_EVERY = 600;
    private static final long PRUNE_AFTER_MILLIS = 24L * 3600 * 1000;

    /**
     * Deletes the records, and the stamp, of every instance whose stamp is older than ARGV[1] (epoch milliseconds):
     * instances gone for a day. KEYS: a shard's metadata. Returns how many instances it let go of.
     */
    static final LuaScript PRUNE = LuaScript.of("prune-acks", LuaScript.Result.INTEGER, """
            local fields = redis.call('HGETALL', KEYS[1])
            local gone, count = {}, 0
            for i = 1, #fields, 2 do
              if string.sub(fields[i], 1, 10) == 'acks-seen:' and tonumber(fields[i + 1]) < tonumber(ARGV[1]) then
                gone[string.sub(fields[i], 11)] = true
                redis.call('HDEL', KEYS[1], fields[i])
                count = count + 1
              end
            end
            for i = 1, #fields, 2 do
              local instance = string.match(fields[i], '^acks:([^.]+)%.')
              if instance and gone[instance] then redis.call('HDEL', KEYS[1], fields[i]) end
            end
            return count
            """);

    /** Sets one field of a shard's metadata: KEYS: the metadata; ARGV: field, value. ({@code HSET} is not a port command.) */
    static final LuaScript STAMP = LuaScript.of("stamp-acks", LuaScript.Result.INTEGER, """
            return redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
            """);

    /** Deletes fields of a shard's metadata: KEYS: the metadata; ARGV: the fields. */
    static final LuaScript DROP = LuaScript.of("drop-acks", LuaScript.Result.INTEGER, """
            return redis.call('HDEL', KEYS[1], unpack(ARGV))
            """);

    private static final SecureRandom IDS = new SecureRandom();

    private final String instance;
    private final RedisFilterCommands commands;
    private final ReplayLog log;
    /** Which record this instance counts under now: raised after each loss. */
    private volatile int incarnation;
    /** Replies counted, per shard metadata and record ({@link #slot}). */
    private final Map<String, AtomicLong> acknowledged = new ConcurrentHashMap<>();
    /**
     * Per shard metadata and record, the replies counted before the last read that found every one stored: a loss
     * found later happened after that read, so every add the server ran since it was acknowledged after it.
     */
    private final Map<String, Long> lastWhole = new ConcurrentHashMap<>();
    /** Records given up after a loss: a reply for one that comes in after the check is written again to be sure. */
    private final Set<String> retired = ConcurrentHashMap.newKeySet();
    /** Keys of such late replies, for the next check to hand over. */
    private final Queue<Object> late = new ConcurrentLinkedQueue<>();
    /** Records withdrawn ({@link #withdraw}), for the next check to delete from every shard's metadata. */
    private final Queue<String> withdrawn = new ConcurrentLinkedQueue<>();
    /** Other instances' counts as last read, per shard metadata and record: read by the maintenance thread only. */
    private final Map<String, Long> othersLastRead = new LinkedHashMap<>();
    private int checks;

    RedisAcknowledgedAdds(RedisFilterCommands commands, ReplayLog log) {
        byte[] id = new byte[6];
        IDS.nextBytes(id);
        this.instance = HexFormat.of().formatHex(id);
        this.commands = commands;
        this.log = log;
    }

    /** The record an add is counted under now. */
    String record() {
        return RECORD_PREFIX + instance + "." + incarnation;
    }

    /**
     * The adds just counted under {@code record} were not acknowledged after all: their put failed because too few
     * replicas confirmed them ({@code wait-for-replicas} under {@code on-add-failure: fail}), and the write rolled
     * back. Redis counted them, and may keep or lose them: the record's count no longer says what was acknowledged,
     * so adds are counted under a new record from now on, and the old one is deleted at the next check (it is this
     * instance's alone to give up; other instances take a record that is gone as let go of, not lost).
     */
    synchronized void withdraw(String record) {
        if (record.equals(record()) && retired.add(record)) {
            incarnation++;
            withdrawn.add(record);
        }
    }

    /** {@code args} of an add script, with the record it is counted under last. */
    static List<String> withRecord(List<String> args, String record) {
        List<String> all = new ArrayList<>(args.size() + 1);
        all.addAll(args);
        all.add(record);
        return all;
    }

    /** Redis ran an add of {@code keys} into the shard of {@code meta}, counted under {@code record}. */
    void acknowledged(String meta, String record, List<Object> keys) {
        if (retired.contains(record)) {
            late.addAll(keys); // ran before or after the loss: which, only a count read later could say
            return;
        }
        String slot = slot(meta, record);
        long number = acknowledged.computeIfAbsent(slot, s -> new AtomicLong()).incrementAndGet();
        log.add(slot, number, keys);
    }

    /**
     * Reads the metadata of {@code metas} (every shard this instance may have added to) and compares the counts with
     * the replies: {@code null} when nothing was lost. After a loss, adds are counted under a new record.
     *
     * @throws io.bloomguard.redis.port.RedisUnavailableException when Redis does not answer
     */
    @Nullable Loss check(Collection<String> metas) {
        stampAndPrune(metas);
        deleteWithdrawn(metas);
        String own = record();
        Map<String, Long> counted = new LinkedHashMap<>();
        for (String meta : metas) {
            AtomicLong replies = acknowledged.get(slot(meta, own));
            counted.put(meta, (replies != null) ? replies.get() : 0L); // before the read: every one ran before it
        }
        Map<String, CompletableFuture<Map<String, String>>> reads = new LinkedHashMap<>();
        for (String meta : metas) {
            reads.put(meta, commands.send(port -> port.hashGetAll(meta)));
        }
        List<Gap> gaps = new ArrayList<>();
        long othersLost = 0;
        for (Map.Entry<String, CompletableFuture<Map<String, String>>> read : reads.entrySet()) {
            String meta = read.getKey();
            Map<String, String> stored = commands.await(read.getValue());
            long count = parse(stored.get(own));
            String slot = slot(meta, own);
            long replies = counted.get(meta);
            if (count >= replies) {
                lastWhole.put(slot, replies);
            }
            else {
                // The server may count adds it ran since the loss: at most those acknowledged since the last whole read.
                long after = Math.max(0, count - (replies - lastWhole.getOrDefault(slot, 0L)));
                gaps.add(new Gap(slot, after, count, replies));
            }
            othersLost += othersWentBack(meta, stored);
        }
        List<Object> lateKeys = new ArrayList<>();
        for (Object key; (key = late.poll()) != null; ) {
            lateKeys.add(key);
        }
        if (gaps.isEmpty() && othersLost == 0 && lateKeys.isEmpty()) {
            return null;
        }
        if (!gaps.isEmpty()) {
            retire(own);
        }
        return new Loss(gaps, othersLost, lateKeys);
    }

    /** How far other instances' records in {@code meta} went back since the last read. */
    private long othersWentBack(String meta, Map<String, String> stored) {
        String ownPrefix = RECORD_PREFIX + instance + ".";
        long lost = 0;
        othersLastRead.keySet().removeIf(slot -> slot.startsWith(meta + " ")
                && !stored.containsKey(slot.substring(meta.length() + 1))); // let go of (pruned), not lost
        for (Map.Entry<String, String> field : stored.entrySet()) {
            String name = field.getKey();
            if (!name.startsWith(RECORD_PREFIX) || name.startsWith(ownPrefix)) {
                continue;
            }
            long now = parse(field.getValue());
            Long before = othersLastRead.put(slot(meta, name), now);
            if (before != null && now < before) {
                lost += before - now;
            }
        }
        return lost;
    }

    private synchronized void retire(String record) {
        if (retired.add(record)) {
            incarnation++;
        }
    }

    /** Deletes the records withdrawn since the last check from every shard's metadata. */
    private void deleteWithdrawn(Collection<String> metas) {
        List<String> records = new ArrayList<>();
        for (String record; (record = withdrawn.poll()) != null; ) {
            records.add(record);
        }
        if (records.isEmpty()) {
            return;
        }
        try {
            for (String meta : metas) {
                commands.call(port -> port.eval(DROP, List.of(meta), records));
            }
        }
        catch (RuntimeException ex) {
            withdrawn.addAll(records); // the next check deletes them
            throw ex;
        }
    }

    /** Every {@value #STAMP_EVERY} checks, from the first: stamps this instance's record and deletes those of instances gone. */
    private void stampAndPrune(Collection<String> metas) {
        if (checks++ % STAMP_EVERY != 0) {
            return;
        }
        long now = System.currentTimeMillis();
        for (String meta : metas) {
            commands.call(port -> port.eval(STAMP, List.of(meta),
                    List.of(STAMP_PREFIX + instance, Long.toString(now))));
            commands.call(port -> port.eval(PRUNE, List.of(meta), List.of(Long.toString(now - PRUNE_AFTER_MILLIS))));
        }
    }

    /** The keys of this instance's adds that {@code loss} took and its log still holds. */
    List<Object> lostKeys(Loss loss) {
        List<Object> keys = new ArrayList<>(loss.late());
        for (Gap gap : loss.own()) {
            keys.addAll(log.after(gap.slot(), gap.after()));
        }
        return keys;
    }

    /** Whether the log still holds every add of this instance that {@code loss} may have taken. */
    boolean logHoldsAll(Loss loss) {
        return loss.own().stream().allMatch(gap -> log.holdsAllAfter(gap.slot(), gap.after()));
    }

    /** Keys the replay log holds now. */
    long loggedKeys() {
        return log.keys();
    }

    private static String slot(String meta, String record) {
        return meta + " " + record;
    }

    private static long parse(@Nullable String count) {
        if (count == null) {
            return 0;
        }
        try {
            return Long.parseLong(count);
        }
        catch (NumberFormatException ex) {
            return 0;
        }
    }

    /**
     * What a check found lost.
     *
     * @param own        this instance's records whose stored count is below the replies it counted
     * @param othersLost how far other instances' records went back: their adds, which only a rebuild gives back
     * @param late       keys of adds acknowledged under a record given up after an earlier loss
     */
    record Loss(List<Gap> own, long othersLost, List<Object> late) {

        /** This instance's adds lost. */
        long ownLost() {
            return own.stream().mapToLong(gap -> gap.counted() - gap.stored()).sum();
        }
    }

    /**
     * One record of this instance in one shard: Redis counts {@code stored} of the {@code counted} adds it
     * acknowledged; the lost ones are among those numbered above {@code after}.
     */
    record Gap(String slot, long after, long stored, long counted) {
    }
}
