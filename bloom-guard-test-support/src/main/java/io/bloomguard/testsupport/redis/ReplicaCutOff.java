package io.bloomguard.testsupport.redis;

/**
 * A replica cut off from its primary so that it really misses what the primary writes from then on. A stopped
 * replica alone may miss nothing: the primary's output buffer and the socket keep the writes until it resumes. So
 * the replica is stopped (SIGSTOP) and then the primary drops its link ({@code CLIENT KILL TYPE replica}), which
 * throws away what it had not sent yet (and may reset the connection under what the stopped replica has not read);
 * stopped, the replica cannot reconnect and catch up, and by the time {@link #killPrimary()} resumes it the primary
 * is gone. Either way the replica holds at most what the primary held at the cut.
 */
final class ReplicaCutOff {

    private final RedisServerProcess primary;
    private final RedisServerProcess replica;
    private final String bitmapKeys;
    private final long bitsAtCut;

    private ReplicaCutOff(RedisServerProcess primary, RedisServerProcess replica, String bitmapKeys, long bitsAtCut) {
        this.primary = primary;
        this.replica = replica;
        this.bitmapKeys = bitmapKeys;
        this.bitsAtCut = bitsAtCut;
    }

    static ReplicaCutOff cut(RedisServerProcess primary, RedisServerProcess replica, String bitmapKeys) {
        replica.pause();
        primary.command("CLIENT", "KILL", "TYPE", "replica");
        // Counted after the cut: the replica holds at most this.
        return new ReplicaCutOff(primary, replica, bitmapKeys, BitmapBits.count(primary, bitmapKeys));
    }

    /**
     * Proves the primary wrote bits since the cut, kills it (SIGKILL) and resumes the replica, which finds its link
     * gone and nobody to catch up from.
     * @throws AssertionError, as a harness error, when the primary wrote nothing the replica lacks
     */
    LostWrites killPrimary() {
        LostWrites lost;
        try {
            lost = LostWrites.proven(bitmapKeys, bitsAtCut, BitmapBits.count(primary, bitmapKeys),
                    "the primary on port " + primary.port());
        }
        catch (AssertionError ex) {
            replica.resume();
            throw ex;
        }
        primary.kill();
        replica.resume();
        return lost;
    }

}
