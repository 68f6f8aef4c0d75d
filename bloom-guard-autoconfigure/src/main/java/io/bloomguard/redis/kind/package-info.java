/**
 * What varies with the kind of a Redis filter, behind one plug-in point: {@link RedisKind}
 * names a stored generation ({@link RedisFilterIdentity}, its key names), opens it
 * ({@link Generation}: how a key is checked, what a write sends, its size, fill, near copy
 * and removes) and builds it. The kinds of blocks split over shards share the parts here; each kind is a package of
 * its own ({@code plain}, {@code counting}, {@code layered}) registered with the backend. Lua bodies, key names and
 * fingerprints are stored data: they never change for a kind that exists.
 */
@NullMarked
package io.bloomguard.redis.kind;

import org.jspecify.annotations.NullMarked;
