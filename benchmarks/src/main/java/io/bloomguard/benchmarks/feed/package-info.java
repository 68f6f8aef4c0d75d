/**
 * The change feeds under a steady load of rows inserted behind the application's back: each change's lag to its
 * key in the filter, every inserted row found, and what polling costs the database. See the module README.
 */
@NullMarked
package io.bloomguard.benchmarks.feed;

import org.jspecify.annotations.NullMarked;
