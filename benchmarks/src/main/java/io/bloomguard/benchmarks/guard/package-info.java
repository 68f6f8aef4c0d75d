/**
 * What the guard costs on a call: a small Spring Boot application with an H2 database and one guarded Spring Data
 * JPA repository, and the JMH benchmark that calls it ({@link io.bloomguard.benchmarks.guard.GuardCallBenchmark}).
 */
@NullMarked
package io.bloomguard.benchmarks.guard;

import org.jspecify.annotations.NullMarked;
