/**
 * Adds on their way to Redis: one script a shard into the live generation and the one being built, the
 * buffer of adds Redis did not take and their replay, and removes from a counting filter.
 */
@NullMarked
package io.bloomguard.redis.write;

import org.jspecify.annotations.NullMarked;
