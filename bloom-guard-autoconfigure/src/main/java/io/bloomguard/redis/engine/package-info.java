/**
 * The Redis backend's work, the same for every kind of filter: joining, building and swapping generations under a
 * lock (lifecycle), the stored state and its one view, checks and adds with their retries, the outage buffer and
 * stale marks, the near copy and its ordered feed, access and key-type probes, and the transport (breakers,
 * timeouts, the shared connection). It reaches a kind only through {@link io.bloomguard.redis.kind} (what a stored
 * generation is, and how it is checked and written), never a kind's own package; the filter and backend in
 * {@link io.bloomguard.redis} assemble it.
 */
@NullMarked
package io.bloomguard.redis.engine;

import org.jspecify.annotations.NullMarked;
