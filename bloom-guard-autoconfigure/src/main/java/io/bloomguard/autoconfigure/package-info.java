/**
 * Spring Boot auto-configuration: binds and checks the properties, decides which beans exist and wires them, and
 * explains a failed startup. Nothing depends on this package.
 */
@NullMarked
package io.bloomguard.autoconfigure;

import org.jspecify.annotations.NullMarked;
