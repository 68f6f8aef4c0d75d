package io.bloomguard.testsupport.redis;

/**
 * Proof that a Redis came back without writes it had acknowledged: the bits set in a filter's bitmaps on the old
 * server when the copy that survives was cut off from it (a replica's link dropped, an RDB file saved), and just
 * before the old server was lost. The survivor holds at most the bits of the cut, and adds only set bits, so more
 * bits before the loss than at the cut means the survivor lacks at least the difference. The harness refuses to
 * claim a loss that did not happen: it fails with a harness error instead.
 *
 * @param bitmapKeys the {@code SCAN} pattern of the bitmaps counted
 * @param bitsAtCut  bits set on the old server when the survivor was cut off (at least what the survivor holds)
 * @param bitsAtLoss bits set on the old server just before it was killed
 */
public record LostWrites(String bitmapKeys, long bitsAtCut, long bitsAtLoss) {

    /** Bits the survivor lacks, at least. */
    public long missingBits() {
        return bitsAtLoss - bitsAtCut;
    }

    /**
     * @throws AssertionError, as a harness error, when nothing was written between the cut and the loss
     */
    static LostWrites proven(String bitmapKeys, long bitsAtCut, long bitsAtLoss, String what) {
        if (bitsAtLoss <= bitsAtCut) {
            throw new AssertionError("Harness error: the loss was not produced: " + what + " had " + bitsAtCut
                    + " bits set in " + bitmapKeys + " at the cut and " + bitsAtLoss
                    + " just before it was lost, so the survivor lacks nothing; write more between the two");
        }
        return new LostWrites(bitmapKeys, bitsAtCut, bitsAtLoss);
    }

    @Override
    public String toString() {
        return "at least " + missingBits() + " bits of " + bitmapKeys + " lost (" + bitsAtLoss + " set before the loss, "
                + bitsAtCut + " at the cut)";
    }

}
