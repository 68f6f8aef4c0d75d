package io.bloomguard.autoconfigure;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Turns bloom-guard on in a test slice such as {@code @DataJpaTest} or {@code @DataRedisTest}, which leave it out as
 * they leave out caching: the guard, the filters, their preload and the {@code @BloomPut} / {@code @BloomRemove}
 * writes then work as in the application. A full {@code @SpringBootTest} has them already.
 *
 * <pre>
 * &#64;DataJpaTest
 * &#64;AutoConfigureBloomGuard
 * class UserRepositoryTest { ... }
 * </pre>
 *
 * The auto-configuration it imports is listed in
 * {@code META-INF/spring/io.bloomguard.autoconfigure.AutoConfigureBloomGuard.imports}.
 *
 * @since 0.1.0
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration
public @interface AutoConfigureBloomGuard {
}
