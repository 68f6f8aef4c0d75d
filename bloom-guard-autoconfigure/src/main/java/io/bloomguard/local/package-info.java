/**
 * The in-JVM backend: a lock-free blocked Bloom filter, its counting variant, and a cuckoo filter. Needs nothing
 * installed.
 */
@NullMarked
package io.bloomguard.local;

import org.jspecify.annotations.NullMarked;
