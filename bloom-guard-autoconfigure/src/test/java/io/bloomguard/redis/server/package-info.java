/**
 * Test harness for tests that need a real {@code redis-server}: single nodes that can be killed and
 * restarted on the same port, a three-node cluster, and a TCP proxy that can freeze traffic. No Docker,
 * no mocks; every process is a child of the test JVM and dies with it.
 */
@NullMarked
package io.bloomguard.redis.server;

import org.jspecify.annotations.NullMarked;
