package io.bloomguard.guard;

import io.bloomguard.registry.BloomFilterRegistry;
import org.jspecify.annotations.Nullable;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.core.MethodClassKey;
import org.springframework.util.ClassUtils;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@code @BloomGuarded}, {@code @BloomPut} and {@code @BloomRemove} operations of methods, resolved once per method and target
 * class and cached, as Spring's cache annotations are: the interceptors look them up on every call. The
 * annotations are read and checked by {@link BloomAnnotationParser}; a Spring Data repository's {@code saveAll}
 * takes the put of its {@code save} ({@link RepositorySaves}).
 *
 * <p>Validation happens when a bean's proxy is being decided, for every annotated method of the class at
 * once, so a mistake anywhere stops startup instead of surfacing on the first call: an unknown filter, a key
 * expression that does not parse or names a missing parameter, a default key on a method that has no single
 * parameter or whose parameter type has no canonical key form, and a return type with no empty value.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class BloomOperationSource {

    private final BloomAnnotationParser parser;
    private final RepositorySaves repositorySaves = new RepositorySaves((method, targetClass) -> operationsFor(method,
            targetClass).put());
    private final Map<MethodClassKey, MethodOperations> operations = new ConcurrentHashMap<>();
    private final Set<Class<?>> validatedClasses = ConcurrentHashMap.newKeySet();

    public BloomOperationSource(BloomFilterRegistry registry) {
        this.parser = new BloomAnnotationParser(registry);
    }

    /**
     * Whether the method carries an annotation. The first time a target class is seen, every annotated method
     * of it is validated, and an invalid one throws {@link InvalidBloomAnnotationException}.
     */
    boolean matches(Method method, @Nullable Class<?> targetClass) {
        if (targetClass != null) {
            validate(targetClass);
        }
        return !operationsFor(method, targetClass).isEmpty();
    }

    /**
     * Validates every annotated method of {@code type} now, as {@link #matches} does when a proxy is being decided:
     * for beans that may not be created at startup, such as a Spring Data repository nothing injects (Spring
     * creates a factory bean's object only when it is first asked for).
     *
     * @throws InvalidBloomAnnotationException for the first mistake found
     */
    public void validate(Class<?> type) {
        if (validatedClasses.add(type)) {
            validateAll(type);
        }
    }

    /**
     * Whether {@link KeysInTransactionAdvisor} applies: a {@code @BloomPut} or {@code @BloomRemove} method of a class.
     * A Spring Data repository's (any {@code Repository}, not only a {@code CrudRepository}) are handled inside the
     * repository's own proxy instead, where its transaction is.
     */
    boolean hasWriteOnClass(Method method, @Nullable Class<?> targetClass) {
        boolean repository = targetClass != null && repositorySaves.isRepository(targetClass);
        return !repository && operationsFor(method, targetClass).writes();
    }

    /** The operations of a method called on a bean of {@code targetClass}: the interceptors' look-up on every call. */
    MethodOperations operationsFor(Method method, @Nullable Class<?> targetClass) {
        MethodClassKey cacheKey = new MethodClassKey(method, targetClass);
        MethodOperations cached = operations.get(cacheKey);
        if (cached != null) {
            return cached;
        }
        // Not computeIfAbsent: resolving saveAll looks up save, which must not update the map inside its own update.
        MethodOperations resolved = resolve(method, targetClass);
        operations.put(cacheKey, resolved);
        return resolved;
    }

    /**
     * For every filter with guarded methods, the methods ({@code Type.method}) it guards, as validated so far (at
     * startup, all of them): the preload warns about a guarded filter nothing loads.
     */
    public Map<String, Set<String>> guardedMethodsByFilter() {
        Map<String, Set<String>> byFilter = new TreeMap<>();
        for (MethodOperations resolved : operations.values()) {
            GuardOperation guard = resolved.guard();
            if (guard != null) {
                byFilter.computeIfAbsent(guard.filter().name(), name -> new TreeSet<>()).add(guard.description());
            }
        }
        byFilter.replaceAll((filter, methods) -> Collections.unmodifiableSet(methods));
        return byFilter;
    }

    private void validateAll(Class<?> targetClass) {
        boolean jdkProxy = Proxy.isProxyClass(targetClass);
        List<Class<?>> types = new ArrayList<>();
        if (!jdkProxy) {
            types.add(targetClass);
            parser.checkInterceptable(targetClass);
        }
        // A JDK proxy's own methods carry neither annotations nor parameter names: its interfaces do.
        types.addAll(ClassUtils.getAllInterfacesForClassAsSet(targetClass));
        for (Class<?> type : types) {
            for (Method method : type.getMethods()) {
                operationsFor(method, targetClass);
            }
        }
    }

    private MethodOperations resolve(Method invoked, @Nullable Class<?> targetClass) {
        // A call through a generic interface arrives at the compiler's bridge method, whose return type is the
        // erasure (Object for Optional<T>) and whose parameters have no names: read the method it bridges to.
        Method method = BridgeMethodResolver.findBridgedMethod(invoked);
        if (method.isSynthetic() && !method.isBridge()) {
            // The compiler's, such as the static $suspendImpl that carries an open suspend fun's annotations and
            // body: no proxy sees its calls, and the method it serves is guarded itself.
            return MethodOperations.NONE;
        }
        MethodOperations annotated = parser.parse(method, targetClass);
        if (annotated != null) {
            return annotated;
        }
        PutOperation throughSave = repositorySaves.putThroughSave(method, targetClass);
        return (throughSave != null) ? new MethodOperations(null, throughSave, null) : MethodOperations.NONE;
    }
}
