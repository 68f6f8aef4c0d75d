/**
 * Spring Boot auto-configuration: properties, the beans that wire the guard and the preload, and the failure
 * analyzer. Nothing depends on this package.
 */
@NullMarked
package io.bloomguard.autoconfigure;

import org.jspecify.annotations.NullMarked;
