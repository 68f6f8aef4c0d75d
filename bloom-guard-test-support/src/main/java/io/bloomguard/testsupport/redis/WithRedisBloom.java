package io.bloomguard.testsupport.redis;

import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * On a {@link RedisServerProcess} (or {@link RedisClusterProcess}) parameter resolved by {@link RedisServerExtension}:
 * a server (a cluster) of its own with the
 * {@link RedisBloomModule} loaded ({@code BF.*}, {@code CF.*}), one per test class like the plain one. Without a
 * module the tests that need it are skipped (disabled, with the variable to set): the whole class when the parameter
 * is on a constructor or lifecycle method, else the one test method.
 *
 * <p>Usage: {@code @BeforeAll static void connect(@WithRedisBloom RedisServerProcess redis) { ... }}
 */
@Target(ElementType.PARAMETER)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ExtendWith(RedisBloomCondition.class)
public @interface WithRedisBloom {

}
