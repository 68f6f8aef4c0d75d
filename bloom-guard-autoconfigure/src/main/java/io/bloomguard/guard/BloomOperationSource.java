package io.bloomguard.guard;

import io.bloomguard.annotation.BloomGuarded;
import io.bloomguard.annotation.BloomPut;
import io.bloomguard.core.KeyCanonicalizer;
import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.NamedBloomFilter;
import io.bloomguard.registry.UnknownFilterException;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.MethodClassKey;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.BeanReference;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.ClassUtils;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Reads {@code @BloomGuarded} and {@code @BloomPut} off methods, validates them and resolves them into
 * operations, once per method and target class.
 *
 * <p>Validation happens when a bean's proxy is being decided, for every annotated method of the class at
 * once, so a mistake anywhere stops startup instead of surfacing on the first call: an unknown filter, a key
 * expression that does not parse or names a missing parameter, a default key on a method that has no single
 * parameter or whose parameter type has no canonical key form, and a return type with no empty value.
 */
public final class BloomOperationSource {

    private static final Operations NONE = new Operations(null, null);

    private static final @Nullable Class<?> CRUD_REPOSITORY =
            EmptyValues.optionalClass("org.springframework.data.repository.CrudRepository");

    private static final @Nullable Class<?> REPOSITORY =
            EmptyValues.optionalClass("org.springframework.data.repository.Repository");

    private final BloomFilterRegistry registry;
    private final SpelExpressionParser parser = new SpelExpressionParser();
    private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();
    private final Map<MethodClassKey, Operations> operations = new ConcurrentHashMap<>();
    private final Set<Class<?>> validatedClasses = ConcurrentHashMap.newKeySet();
    private final Map<String, Set<String>> guardedMethods = new ConcurrentHashMap<>();

    public BloomOperationSource(BloomFilterRegistry registry) {
        this.registry = registry;
    }

    /** The operations of one method; both null when the method carries neither annotation. */
    record Operations(@Nullable GuardOperation guard, @Nullable PutOperation put) {

        boolean isEmpty() {
            return guard == null && put == null;
        }
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
     * Whether {@link PutBeforeCommitAdvisor} applies: a {@code @BloomPut} method of a class. A Spring Data
     * repository's (any {@code Repository}, not only a {@code CrudRepository}) puts are made inside the
     * repository's own proxy instead, where its transaction is.
     */
    boolean hasPutOnClass(Method method, @Nullable Class<?> targetClass) {
        boolean repository = targetClass != null && isRepositoryProxy(targetClass, REPOSITORY);
        return !repository && operationsFor(method, targetClass).put() != null;
    }

    Operations operationsFor(Method method, @Nullable Class<?> targetClass) {
        MethodClassKey cacheKey = new MethodClassKey(method, targetClass);
        Operations cached = operations.get(cacheKey);
        if (cached != null) {
            return cached;
        }
        Operations resolved = resolve(method, targetClass);
        operations.put(cacheKey, resolved);
        return resolved;
    }

    /**
     * For every filter with guarded methods, the methods ({@code Type.method}) it guards: the preload warns
     * about a guarded filter nothing loads.
     */
    public Map<String, Set<String>> guardedMethodsByFilter() {
        Map<String, Set<String>> copy = new TreeMap<>();
        guardedMethods.forEach((filter, methods) -> copy.put(filter, Collections.unmodifiableSet(methods)));
        return copy;
    }

    private void validateAll(Class<?> targetClass) {
        boolean jdkProxy = Proxy.isProxyClass(targetClass);
        List<Class<?>> types = new ArrayList<>();
        if (!jdkProxy) {
            types.add(targetClass);
            checkInterceptable(targetClass);
        }
        // A JDK proxy's own methods carry neither annotations nor parameter names: its interfaces do.
        types.addAll(ClassUtils.getAllInterfacesForClassAsSet(targetClass));
        for (Class<?> type : types) {
            for (Method method : type.getMethods()) {
                operationsFor(method, targetClass);
            }
        }
    }

    /**
     * An annotation on a method no proxy can intercept would do nothing, silently: a {@code @BloomPut} there
     * would leave its keys out of the filter, which would then reject records that exist.
     */
    private static void checkInterceptable(Class<?> targetClass) {
        for (Class<?> type = targetClass; type != null && type != Object.class; type = type.getSuperclass()) {
            for (Method method : type.getDeclaredMethods()) {
                int modifiers = method.getModifiers();
                String kind = Modifier.isPrivate(modifiers) ? "private"
                        : Modifier.isStatic(modifiers) ? "static" : Modifier.isFinal(modifiers) ? "final" : null;
                if (kind == null || method.isBridge()) {
                    continue;
                }
                BloomGuarded guarded = AnnotatedElementUtils.findMergedAnnotation(method, BloomGuarded.class);
                BloomPut put = AnnotatedElementUtils.findMergedAnnotation(method, BloomPut.class);
                if (guarded == null && put == null) {
                    continue;
                }
                String written = (guarded != null) ? asWritten("@BloomGuarded", guarded.filter(), guarded.key())
                        : asWritten("@BloomPut", put.filter(), put.key());
                throw new InvalidBloomAnnotationException(written, type.getSimpleName() + "." + method.getName(),
                        "the method is " + kind + ", so Spring's proxy never sees its calls and the annotation would"
                                + " do nothing",
                        "Make the method public and neither static nor final, and call it through the bean (not from"
                                + " inside its own class)");
            }
        }
    }

    private Operations resolve(Method invoked, @Nullable Class<?> targetClass) {
        // A call through a generic interface arrives at the compiler's bridge method, whose return type is the
        // erasure (Object for Optional<T>) and whose parameters have no names: read the method it bridges to.
        Method method = BridgeMethodResolver.findBridgedMethod(invoked);
        Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
        BloomGuarded guarded = find(specific, method, BloomGuarded.class);
        BloomPut put = find(specific, method, BloomPut.class);
        if (guarded == null && put == null) {
            PutOperation throughSave = putThroughSave(method, targetClass);
            return (throughSave != null) ? new Operations(null, throughSave) : NONE;
        }
        String description = describe(method, targetClass);
        if (guarded != null && put != null && guarded.filter().equals(put.filter())) {
            throw new InvalidBloomAnnotationException(asWritten("@BloomGuarded", guarded.filter(), guarded.key())
                    + " with " + asWritten("@BloomPut", put.filter(), put.key()), description,
                    "the method is guarded by the filter it puts into, so a new key is rejected before the method can"
                            + " write it, and its record is never written",
                    "Guard the methods that look records up and put on the ones that write them; to add a key and learn"
                            + " whether it was new (deduplication), call the filter's put() and act on its answer");
        }
        // Key expressions name the parameters of the method that carries the annotation: behind a JDK proxy a call
        // arrives at the interface's method, whose parameter names may differ from the implementation's.
        GuardOperation guard = (guarded != null)
                ? guardOperation(guarded, annotatedOn(specific, method, BloomGuarded.class), targetClass, description)
                : null;
        PutOperation putOperation = (put != null)
                ? putOperation(put, annotatedOn(specific, method, BloomPut.class), targetClass, description)
                : null;
        return new Operations(guard, putOperation);
    }

    /**
     * Spring Data implements {@code saveAndFlush}, {@code saveAll} and {@code saveAllAndFlush} by calling
     * {@code save} on the repository implementation itself, past the proxy, so a {@code @BloomPut} on
     * {@code save} alone would never see the records they write. Unless they carry their own, they take
     * {@code save}'s: {@code saveAndFlush} as it is (same parameter, same result), the other two once per
     * saved entity of their result, as if each had gone through {@code save}.
     */
    private @Nullable PutOperation putThroughSave(Method method, @Nullable Class<?> targetClass) {
        boolean each = method.getName().equals("saveAll") || method.getName().equals("saveAllAndFlush");
        if (!(each || method.getName().equals("saveAndFlush")) || method.getParameterCount() != 1
                || targetClass == null || !isRepositoryProxy(targetClass, CRUD_REPOSITORY)) {
            return null;
        }
        for (Class<?> type : ClassUtils.getAllInterfacesForClassAsSet(targetClass)) {
            for (Method candidate : type.getMethods()) {
                if (candidate.getName().equals("save") && candidate.getParameterCount() == 1) {
                    PutOperation save = operationsFor(candidate, targetClass).put();
                    if (save != null) {
                        String description = describe(method, targetClass) + " (with the @BloomPut of save)";
                        KeyExpression key = each ? KeyExpression.eachElementOfResult(save.key()) : save.key();
                        return new PutOperation(save.filter(), key, description, save.kind());
                    }
                }
            }
        }
        return null;
    }

    /** Whether the class is a Spring Data repository's JDK proxy of that type ({@code null}: no Spring Data). */
    private static boolean isRepositoryProxy(Class<?> targetClass, @Nullable Class<?> repositoryType) {
        return repositoryType != null && Proxy.isProxyClass(targetClass) && repositoryType.isAssignableFrom(targetClass);
    }

    private static <A extends java.lang.annotation.Annotation> @Nullable A find(Method specific, Method method,
            Class<A> type) {
        A annotation = AnnotatedElementUtils.findMergedAnnotation(specific, type);
        if (annotation == null && specific != method) {
            annotation = AnnotatedElementUtils.findMergedAnnotation(method, type);
        }
        return annotation;
    }

    /**
     * Of the two methods {@link #find} looks at, the one the annotation is written on: {@code specific} only if it
     * carries the annotation itself (a JDK proxy's method finds its interface's, but has no parameter names).
     */
    private static Method annotatedOn(Method specific, Method method, Class<? extends java.lang.annotation.Annotation> type) {
        return AnnotatedElementUtils.isAnnotated(specific, type) ? specific : method;
    }

    private GuardOperation guardOperation(BloomGuarded annotation, Method method, @Nullable Class<?> targetClass,
            String description) {
        String written = asWritten("@BloomGuarded", annotation.filter(), annotation.key());
        NamedBloomFilter filter = filter(annotation.filter(), written, description);
        KeyExpression key = keyExpression(annotation.key(), false, method, targetClass, written, description);
        // As declared for the bean: V of a generic base class is Optional<User> in the subclass that says so.
        Class<?> returnType = returnTypeOf(method, targetClass).resolve(method.getReturnType());
        Function<@Nullable Object[], @Nullable Object> emptyValue = EmptyValues.forCall(returnType, method);
        if (emptyValue == null) {
            throw new InvalidBloomAnnotationException(written, description,
                    "return type " + returnType.getName() + " has no empty value to answer a rejected call with",
                    EmptyValues.whatToReturnInstead(returnType));
        }
        guardedMethods.computeIfAbsent(filter.name(), name -> Collections.synchronizedSet(new LinkedHashSet<>()))
                .add(description);
        DeferredPuts.Kind kind = DeferredPuts.kindOf(returnType);
        // A Mono<Void> says no more than a void method; the value type of a Mono or Flux is its type argument.
        Class<?> answerType = kind.deferred()
                ? returnTypeOf(method, targetClass).getGeneric(0).resolve(Object.class) : returnType;
        boolean answersWithValue = answerType != void.class && answerType != Void.class;
        return new GuardOperation(filter, key, emptyValue, answersWithValue, description, kind);
    }

    private PutOperation putOperation(BloomPut annotation, Method method, @Nullable Class<?> targetClass,
            String description) {
        String written = asWritten("@BloomPut", annotation.filter(), annotation.key());
        NamedBloomFilter filter = filter(annotation.filter(), written, description);
        KeyExpression key = keyExpression(annotation.key(), true, method, targetClass, written, description);
        return new PutOperation(filter, key, description,
                DeferredPuts.kindOf(returnTypeOf(method, targetClass).resolve(method.getReturnType())));
    }

    /** The annotation as the user wrote it, for error messages. */
    private static String asWritten(String annotation, String filter, String key) {
        return annotation + "(filter = \"" + filter + "\"" + (key.isEmpty() ? "" : ", key = \"" + key + "\"") + ")";
    }

    private NamedBloomFilter filter(String name, String written, String description) {
        try {
            return registry.get(name);
        }
        catch (UnknownFilterException ex) {
            List<String> known = registry.all().stream().map(NamedBloomFilter::name).toList();
            throw new InvalidBloomAnnotationException(written, description,
                    "no filter named '" + name + "'; configured: "
                            + (known.isEmpty() ? "none" : String.join(", ", known)),
                    "Use one of the configured names, or declare bloom-guard.filters." + name + " in your configuration",
                    ex);
        }
    }

    private KeyExpression keyExpression(String expression, boolean allowResult, Method method,
            @Nullable Class<?> targetClass, String written, String description) {
        int parameterCount = method.getParameterCount();
        if (expression.isBlank()) {
            if (parameterCount != 1) {
                throw new InvalidBloomAnnotationException(written, description,
                        "no key expression, and the method has " + parameterCount + " parameters instead of one",
                        "Say which value is the key, e.g. key = \"#p0\" or key = \"#tenant + ':' + #id\"");
            }
            checkKeyType(method, 0, targetClass, allowResult, written, description);
            return KeyExpression.argument(0);
        }
        SpelExpression parsed;
        try {
            parsed = (SpelExpression) parser.parseExpression(expression);
        }
        catch (ParseException ex) {
            throw new InvalidBloomAnnotationException(written, description,
                    "key expression does not parse: " + ex.getMessage(),
                    "Write a SpEL expression over the parameters, e.g. key = \"#id\"", ex);
        }
        String[] names = parameterNames.getParameterNames(method);
        List<String> variables = new ArrayList<>();
        collectVariables(parsed.getAST(), variables);
        if (containsBeanReference(parsed.getAST())) {
            // Spring's cache annotations resolve @name; these expressions have no bean resolver, so every call
            // would fail to compute its key.
            throw new InvalidBloomAnnotationException(written, description,
                    "key expression refers to a bean (@name), which bloom-guard key expressions cannot reach",
                    "Compute the key from the parameters, e.g. key = \"#tenant + ':' + #id\", or pass the value in");
        }
        boolean usesResult = false;
        for (String variable : variables) {
            if (variable.equals("root")) {
                throw new InvalidBloomAnnotationException(written, description,
                        "key expression uses #root, which here is not Spring Cache's root object (#root.args,"
                                + " #root.method do not exist)",
                        "Name the parameters instead: #p0, #p1, … or their names");
            }
            if (variable.equals("result")) {
                if (!allowResult) {
                    throw new InvalidBloomAnnotationException(written, description,
                            "#result is only known after the method ran, too late to guard it",
                            "Compute the key from the parameters");
                }
                usesResult = true;
                continue;
            }
            if (parameterIndex(variable, names, parameterCount) < 0 && !variable.equals("this")) {
                throw new InvalidBloomAnnotationException(written, description,
                        "key expression names #" + variable + ", which is not a parameter of the method"
                                + (names == null ? " (parameter names are not compiled in)" : "; parameters: "
                                        + String.join(", ", names)),
                        names == null
                                ? "Use #p0, #p1, … or compile with -parameters (Spring Boot's Maven and Gradle plugins do)"
                                : "Use one of the parameter names, #p0, #p1, …" + (allowResult ? " or #result" : ""));
            }
        }
        if (parsed.getAST() instanceof VariableReference && variables.size() == 1) {
            int index = parameterIndex(variables.get(0), names, parameterCount);
            if (index >= 0) {
                checkKeyType(method, index, targetClass, allowResult, written, description);
                return KeyExpression.argument(index);
            }
        }
        if (usesResult) {
            checkResultType(method, targetClass, parsed.getAST() instanceof VariableReference, written, description);
        }
        // A guard's key over a null argument is no key: SpEL would make "acme:" + null the text "acme:null", which
        // no record has, while the query finds the rows whose column IS NULL. (A put's key is merely useless then.)
        int[] nullMeansNoKey = allowResult ? new int[0] : variables.stream()
                .mapToInt(variable -> parameterIndex(variable, names, parameterCount)).filter(index -> index >= 0)
                .distinct().toArray();
        return KeyExpression.spel(parsed, method, parameterNames, usesResult, nullMeansNoKey);
    }

    /** A key that is a parameter as it is must have a type with a canonical form (or one that may hold it). */
    private static void checkKeyType(Method method, int index, @Nullable Class<?> targetClass, boolean put,
            String written, String description) {
        Class<?> declared = method.getParameterTypes()[index];
        ResolvableType parameter = (targetClass != null)
                ? ResolvableType.forMethodParameter(method, index, targetClass)
                : ResolvableType.forMethodParameter(method, index);
        Class<?> type = parameter.resolve(declared);
        String what = "the key is the parameter";
        if (put && (type.isArray() || Iterable.class.isAssignableFrom(type))) {
            what = "the keys are the elements of the parameter";
            // A put takes a collection or array of keys, one key per element (a guard checks one key).
            ResolvableType element = type.isArray() ? parameter.getComponentType() : parameter.as(Iterable.class).getGeneric(0);
            type = ClassUtils.resolvePrimitiveIfNecessary(element.resolve(Object.class));
        }
        if (!KeyCanonicalizer.isSupportedType(type) && !KeyCanonicalizer.mayHoldSupportedType(type)) {
            throw new InvalidBloomAnnotationException(written, description,
                    what + " of type " + type.getTypeName() + ", which has no canonical key form",
                    "Pass a whole number, String, UUID or enum, or add key = \"...\" that yields one (e.g. \"#p0.id\")");
        }
    }

    /**
     * A key read from the result needs a result that holds it once the method returns, or a promise bloom-guard
     * can watch deliver it ({@link DeferredPuts}); {@code keyIsResult} when the expression is {@code #result}
     * itself, which must then be a key, or keys.
     */
    private static void checkResultType(Method method, @Nullable Class<?> targetClass, boolean keyIsResult,
            String written, String description) {
        ResolvableType returned = returnTypeOf(method, targetClass);
        Class<?> type = returned.resolve(method.getReturnType());
        if (type == void.class || type == Void.class) {
            throw new InvalidBloomAnnotationException(written, description,
                    "the key uses #result, but the method returns nothing",
                    "Return the saved entity or its key, or compute the key from the parameters");
        }
        String what = "the method's result";
        DeferredPuts.Kind kind = DeferredPuts.kindOf(type);
        if (kind == DeferredPuts.Kind.UNWATCHABLE) {
            throw new InvalidBloomAnnotationException(written, description,
                    "the key uses #result, which would be the " + type.getSimpleName()
                            + " itself, and bloom-guard cannot watch a " + type.getSimpleName() + " for the value it delivers",
                    "Return a CompletableFuture, a Mono or a Flux (#result is then its value), or compute the key from"
                            + " the parameters");
        }
        if (kind.deferred()) {
            // Mono<T>, Flux<T>, CompletionStage<T>, CompletableFuture<T>: #result is a T.
            String promise = type.getSimpleName();
            type = returned.getGeneric(0).resolve(Object.class);
            what = (kind == DeferredPuts.Kind.FLUX) ? "each element of the Flux" : "the value of the " + promise;
            if (type == Void.class) {
                throw new InvalidBloomAnnotationException(written, description,
                        "the key uses #result, but the method's " + promise + "<Void> delivers no value",
                        "Deliver the saved entity or its key, or compute the key from the parameters");
            }
        }
        if (keyIsResult && !KeyCanonicalizer.isSupportedType(type) && !KeyCanonicalizer.mayHoldSupportedType(type)
                && !Iterable.class.isAssignableFrom(type) && !type.isArray()) {
            throw new InvalidBloomAnnotationException(written, description,
                    "the key is " + what + ", of type " + type.getTypeName() + ", which has no canonical key form",
                    "Name the key inside the result, e.g. key = \"#result.id\"");
        }
    }

    /** The method's return type as declared for the class it is called on (type variables resolved). */
    private static ResolvableType returnTypeOf(Method method, @Nullable Class<?> targetClass) {
        return (targetClass != null)
                ? ResolvableType.forMethodReturnType(method, targetClass)
                : ResolvableType.forMethodReturnType(method);
    }

    private static int parameterIndex(String variable, String @Nullable [] names, int parameterCount) {
        if (names != null) {
            for (int i = 0; i < names.length; i++) {
                if (names[i].equals(variable)) {
                    return i;
                }
            }
        }
        if (variable.length() > 1 && (variable.charAt(0) == 'p' || variable.charAt(0) == 'a')) {
            try {
                int index = Integer.parseInt(variable.substring(1));
                return (index >= 0 && index < parameterCount) ? index : -1;
            }
            catch (NumberFormatException ex) {
                return -1;
            }
        }
        return -1;
    }

    private static boolean containsBeanReference(SpelNode node) {
        if (node instanceof BeanReference) {
            return true;
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            if (containsBeanReference(node.getChild(i))) {
                return true;
            }
        }
        return false;
    }

    private static void collectVariables(SpelNode node, List<String> into) {
        if (node instanceof VariableReference) {
            into.add(node.toStringAST().substring(1));
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            collectVariables(node.getChild(i), into);
        }
    }

    private static String describe(Method method, @Nullable Class<?> targetClass) {
        Class<?> type = method.getDeclaringClass();
        if (targetClass != null && Proxy.isProxyClass(targetClass)) {
            // A Spring Data repository: name the user's interface, not CrudRepository.
            for (Class<?> candidate : targetClass.getInterfaces()) {
                if (type.isAssignableFrom(candidate)) {
                    type = candidate;
                    break;
                }
            }
        }
        else if (targetClass != null && type.isAssignableFrom(targetClass)) {
            type = targetClass;
        }
        return type.getSimpleName() + "." + method.getName();
    }
}
