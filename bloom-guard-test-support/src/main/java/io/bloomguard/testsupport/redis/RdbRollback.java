package io.bloomguard.testsupport.redis;

import java.nio.file.Path;

/**
 * A Redis restarted from an RDB file older than its last writes, as after a crash with {@code save} snapshots
 * only, or a restore from last night's backup: what it acknowledged after the file was written is gone.
 *
 * <p>Usage: <pre>{@code
 * RdbRollback rollback = RdbRollback.save(redis, "app:{users}:bits:*");   // SAVE, the file kept aside
 * ... more writes ...
 * LostWrites lost = rollback.killAndRestart();   // kill -9, then the same port from the saved file
 * }</pre>
 */
public final class RdbRollback {

    private final RedisServerProcess server;
    private final String bitmapKeys;
    private final Path snapshot;
    private final long bitsAtSave;

    private RdbRollback(RedisServerProcess server, String bitmapKeys, Path snapshot, long bitsAtSave) {
        this.server = server;
        this.bitmapKeys = bitmapKeys;
        this.snapshot = snapshot;
        this.bitsAtSave = bitsAtSave;
    }

    /**
     * Saves what {@code server} holds now to a file ({@code SAVE}) kept for {@link #killAndRestart()}.
     * @param bitmapKeys {@code SCAN} pattern of the bitmaps whose bits prove the loss, such as {@code app:{users}:bits:*}
     */
    public static RdbRollback save(RedisServerProcess server, String bitmapKeys) {
        Path snapshot = server.saveSnapshot();
        // Counted after the save: the file holds at most this.
        return new RdbRollback(server, bitmapKeys, snapshot, BitmapBits.count(server, bitmapKeys));
    }

    /**
     * Proves the server set bits since the save, kills it (SIGKILL) and starts it on the same port from the saved
     * file, waiting until it is loaded.
     * @return the proof the restarted server lacks writes it had acknowledged
     * @throws AssertionError, as a harness error, when nothing was written since the save
     */
    public LostWrites killAndRestart() {
        LostWrites lost = LostWrites.proven(bitmapKeys, bitsAtSave, BitmapBits.count(server, bitmapKeys),
                "redis-server on port " + server.port());
        server.restartFrom(snapshot);
        return lost;
    }

}
