/** Test slices ({@code @DataRedisTest}) with bloom-guard turned on by {@code @AutoConfigureBloomGuard}. */
@NullMarked
package io.bloomguard.slice;

import org.jspecify.annotations.NullMarked;
