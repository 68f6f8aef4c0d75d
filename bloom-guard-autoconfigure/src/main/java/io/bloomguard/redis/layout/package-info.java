/**
 * One RedisLayout per kind of filter (bits, 4-bit counters, layers) with what it owns: the codecs between the
 * JVM's words and Redis strings, a key's check, and the Lua scripts that check, add, place and remove.
 */
@NullMarked
package io.bloomguard.redis.layout;

import org.jspecify.annotations.NullMarked;
