/**
 * The guard: an advisor and interceptor that apply the annotations, the key expressions they use, and the
 * values a rejected call returns.
 */
@NullMarked
package io.bloomguard.guard;

import org.jspecify.annotations.NullMarked;
