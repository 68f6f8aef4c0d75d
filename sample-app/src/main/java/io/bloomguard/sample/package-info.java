/**
 * A runnable REST service that shows bloom-guard in front of Spring Data JPA repositories.
 */
@NullMarked
package io.bloomguard.sample;

import org.jspecify.annotations.NullMarked;
