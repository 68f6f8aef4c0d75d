/**
 * A near copy of the live generation in this instance's heap, which answers the keys it holds with no round
 * trip; kept in step with Redis through the ordered add feed and its barriers, it answers the keys it lacks too.
 */
@NullMarked
package io.bloomguard.redis.copy;

import org.jspecify.annotations.NullMarked;
