/**
 * The guard: checks {@code @BloomGuarded} calls against their filter through one decision, blocking or reactive,
 * and keeps the filter's keys in step with the transactions of {@code @BloomPut} and {@code @BloomRemove} writes.
 */
@NullMarked
package io.bloomguard.guard;

import org.jspecify.annotations.NullMarked;
