/**
 * How each kind of filter lays its positions out in Redis: bits, 4-bit counters, or layers; the codecs
 * between the JVM's words and Redis strings, and the Lua scripts that check, add, place and remove for each kind.
 */
@NullMarked
package io.bloomguard.redis.layout;

import org.jspecify.annotations.NullMarked;
