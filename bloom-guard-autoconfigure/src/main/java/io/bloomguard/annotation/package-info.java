/**
 * The annotations users put on repository and service methods. Depends on nothing.
 */
@NullMarked
package io.bloomguard.annotation;

import org.jspecify.annotations.NullMarked;
