/**
 * The layered kind ({@code growth: scale}): bits in layers on one shard, each twice the one before, read together by
 * one script; a put that fills the newest adds the next.
 */
@NullMarked
package io.bloomguard.redis.kind.layered;

import org.jspecify.annotations.NullMarked;
