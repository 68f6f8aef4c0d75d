/**
 * A filter's life on this instance and the builds of its generations: joining, maintenance and close; the
 * load lock that builds it once for every instance, the generations it uploads and swaps in, and its back-off.
 */
@NullMarked
package io.bloomguard.redis.lifecycle;

import org.jspecify.annotations.NullMarked;
