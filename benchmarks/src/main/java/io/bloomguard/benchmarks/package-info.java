/**
 * JMH benchmarks of bloom-guard against Guava (local backend) and Redisson (Redis backend), and the
 * footprint, false-positive, Redis command-cost and preload-rate printers. See the module README.
 */
@NullMarked
package io.bloomguard.benchmarks;

import org.jspecify.annotations.NullMarked;
