/**
 * The counting kind ({@code type: counting}): a 4-bit counter a position, so that keys can be removed; its scripts
 * add, remove, check and merge counters, and count those above zero.
 */
@NullMarked
package io.bloomguard.redis.kind.counting;

import org.jspecify.annotations.NullMarked;
