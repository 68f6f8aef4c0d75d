package io.bloomguard.autoconfigure;

/** {@code bloom-guard.filters.<name>.redis.*}: Redis settings of one filter. */
public class FilterRedisProperties {

    /**
     * Number of Redis keys the filter's bits are split over, each with its own hash tag so that a Redis Cluster
     * spreads them over its nodes. Filters above one Redis string (2^32 bits) get more automatically.
     */
    private int shards = 1;

    public int getShards() {
        return shards;
    }

    public void setShards(int shards) {
        this.shards = shards;
    }

    /**
     * Whether each instance keeps a copy of the filter's bits in its heap (the filter's size once more) and answers
     * the keys the copy holds without a round trip; only keys it lacks are checked in Redis.
     */
    private boolean nearCopy = false;

    public boolean isNearCopy() {
        return nearCopy;
    }

    public void setNearCopy(boolean nearCopy) {
        this.nearCopy = nearCopy;
    }
}
