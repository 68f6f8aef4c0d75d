/**
 * What bloom-guard's tests and benchmarks share: the contract suite every filter backend passes
 * ({@link io.bloomguard.testsupport.BloomFilterContractTest}), a builder for the Redis backend's settings, and, in
 * {@link io.bloomguard.testsupport.redis}, real {@code redis-server} and Redis Cluster processes, a TCP proxy that
 * can freeze, and a JUnit extension that hands a test class a running server.
 *
 * <p>Why the tests that use this module are not in {@code bloom-guard-autoconfigure}: the suite is written against
 * {@code BloomFilter} and {@code FilterSizing}, so this module depends on {@code bloom-guard-autoconfigure}, and
 * Maven refuses the cycle a dependency back from that module's tests would close (test scope included). Those tests
 * therefore live in {@code bloom-guard-integration-tests}, in the packages of the classes they test, and take the
 * test application from {@code bloom-guard-autoconfigure}'s test jar; {@code bloom-guard-autoconfigure} keeps the
 * tests that need neither a server nor the suite. The ways around the cycle without moving tests were worse: a suite
 * over a copy of the {@code BloomFilter} interface drifts from the real one, and a module of its own for the
 * {@code core} package would change the library's published artifacts for the sake of its tests.
 */
@NullMarked
package io.bloomguard.testsupport;

import org.jspecify.annotations.NullMarked;
