/**
 * What this instance last read of a filter in Redis, and what fixes where its bits are: identity, key names,
 * metadata, status, generations live and next, the fill, and the stale marks that tell every instance not to reject.
 */
@NullMarked
package io.bloomguard.redis.state;

import org.jspecify.annotations.NullMarked;
