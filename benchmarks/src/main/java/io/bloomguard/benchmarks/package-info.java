/**
 * JMH benchmarks of bloom-guard against Guava, and the footprint/false-positive printer. See the module README.
 */
@NullMarked
package io.bloomguard.benchmarks;

import org.jspecify.annotations.NullMarked;
