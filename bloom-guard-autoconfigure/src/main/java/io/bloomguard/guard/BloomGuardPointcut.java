package io.bloomguard.guard;

import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.StaticMethodMatcherPointcut;

import java.lang.reflect.Method;

/** Matches methods that carry {@code @BloomGuarded}, {@code @BloomPut} or {@code @BloomRemove}, on classes and on interfaces. */
final class BloomGuardPointcut extends StaticMethodMatcherPointcut {

    private final BloomOperationSource source;

    BloomGuardPointcut(BloomOperationSource source) {
        this.source = source;
    }

    @Override
    public boolean matches(Method method, @Nullable Class<?> targetClass) {
        return source.matches(method, targetClass);
    }
}
