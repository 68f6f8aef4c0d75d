/**
 * Checks of keys against the live generation: one GETRANGE of a key's block, one script a shard for a
 * batch, the near copy first when there is one; a missing bitmap answers "might contain", never "absent".
 */
@NullMarked
package io.bloomguard.redis.read;

import org.jspecify.annotations.NullMarked;
