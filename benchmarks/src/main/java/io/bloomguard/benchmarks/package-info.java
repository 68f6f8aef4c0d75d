/**
 * JMH benchmarks of bloom-guard against Guava (local backend), Redisson (Redis backend) and the server's native
 * filters ({@code BF.*}, {@code CF.*}), and the footprint, false-positive, Redis command-cost and preload-rate
 * printers. See the module README.
 */
@NullMarked
package io.bloomguard.benchmarks;

import org.jspecify.annotations.NullMarked;
