package io.bloomguard.testsupport.redis;

import java.util.List;

/**
 * Counts the bits set in a filter's bitmaps on one server: the sum of {@code BITCOUNT} over every string key that
 * matches a pattern. Adds only ever set bits, so of two states of one bitmap the one with fewer bits lacks adds the
 * other had: what {@link LostWrites} rests on.
 */
final class BitmapBits {

    private BitmapBits() {
    }

    /**
     * @param server the server to read (on a cluster, the node that owns the pattern's hash tag)
     * @param pattern a {@code SCAN} pattern such as {@code app:{users}:bits:*}
     * @return the bits set in the matching keys; 0 when none matches
     */
    static long count(RedisServerProcess server, String pattern) {
        long bits = 0;
        String cursor = "0";
        do {
            // The reply is the next cursor, then the keys, one a line.
            List<String> reply = List.of(String.valueOf(server.command("SCAN", cursor, "MATCH", pattern, "COUNT",
                    "1000", "TYPE", "string")).split("\n"));
            cursor = reply.get(0);
            for (String key : reply.subList(1, reply.size())) {
                if (!key.isEmpty()) {
                    bits += Long.parseLong(String.valueOf(server.command("BITCOUNT", key)));
                }
            }
        }
        while (!"0".equals(cursor));
        return bits;
    }

}
