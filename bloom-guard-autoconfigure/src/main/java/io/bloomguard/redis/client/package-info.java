/**
 * How the backend's commands reach Redis: the shared connection, the circuit breakers, and each
 * command's timeout, for the backend as a whole and for one filter (which tells its access state every outcome).
 */
@NullMarked
package io.bloomguard.redis.client;

import org.jspecify.annotations.NullMarked;
