/**
 * Named filters: their specs, lifecycle states and counters, and the registry that finds them by name.
 */
@NullMarked
package io.bloomguard.registry;

import org.jspecify.annotations.NullMarked;
