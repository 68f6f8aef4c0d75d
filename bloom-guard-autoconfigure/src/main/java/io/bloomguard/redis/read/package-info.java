/**
 * Checks of keys against the live generation, the near copy first when there is one, then Redis as the filter's
 * layout reads it, a batch in one round trip; a missing bitmap answers "might contain", never "absent".
 */
@NullMarked
package io.bloomguard.redis.read;

import org.jspecify.annotations.NullMarked;
