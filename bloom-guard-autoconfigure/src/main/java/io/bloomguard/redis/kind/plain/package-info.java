/** The plain kind ({@code type: bloom}): a bit a position, blocks split over shards. */
@NullMarked
package io.bloomguard.redis.kind.plain;

import org.jspecify.annotations.NullMarked;
