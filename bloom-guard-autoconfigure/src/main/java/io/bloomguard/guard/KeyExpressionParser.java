package io.bloomguard.guard;

import io.bloomguard.core.KeyCanonicalizer;
import org.jspecify.annotations.Nullable;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.ResolvableType;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelCompilerMode;
import org.springframework.expression.spel.SpelParserConfiguration;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.ClassUtils;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Turns the {@code key} of an annotation into the {@link KeyExpression} its method computes keys with, once, at
 * startup, after checking that it can work: that it parses, names only parameters of the method (and
 * {@code #result}, in a put), reaches no bean, and yields keys of a type with a canonical key form; and the
 * {@code condition} of a {@code @BloomRemove}, checked the same way.
 *
 * <p>A key that is a parameter or the result as it is skips SpEL. Any other expression is compiled by SpEL in its
 * {@linkplain SpelCompilerMode#MIXED mixed} mode: once it has run often enough to know its types. Not
 * {@code IMMEDIATE}, which fails every later call whose argument is of another class than the first call's (an
 * interface-typed parameter, a {@code null}), where the mixed mode falls back to interpreting it.
 */
final class KeyExpressionParser {

    /** The variable an {@code elementKey} names each element by. */
    static final String ELEMENT = "e";

    private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();

    /**
     * The key of {@code annotated}, from {@code expression} ({@code ""}: the method's single parameter).
     *
     * @param put whether the key is put (it may then use {@code #result}, and be a collection or array of keys)
     *            rather than checked
     * @throws InvalidBloomAnnotationException when the expression cannot work
     */
    KeyExpression parse(String expression, boolean put, AnnotatedMethod annotated) {
        Method method = annotated.method();
        int parameterCount = annotated.parameterCount();
        if (expression.isBlank()) {
            if (parameterCount != 1) {
                throw annotated.invalid(
                        "no key expression, and the method has " + parameterCount + " parameters instead of one",
                        "Say which value is the key, e.g. key = \"#p0\" or key = \"#tenant + ':' + #id\"");
            }
            checkParameterKeyType(0, put, annotated);
            return KeyExpression.argument(0);
        }
        Checked checked = check(expression, "key expression", put, annotated);
        SpelExpression parsed = checked.parsed();
        Map<String, Integer> parameters = checked.parameters();
        List<String> variables = checked.variables();
        boolean usesResult = checked.usesResult();
        boolean keyIsOneVariable = parsed.getAST() instanceof VariableReference && variables.size() == 1;
        if (keyIsOneVariable && parameters.containsKey(variables.get(0)) && !usesResult) {
            int index = parameters.get(variables.get(0));
            checkParameterKeyType(index, put, annotated);
            return KeyExpression.argument(index);
        }
        if (usesResult) {
            checkResultKeyType(keyIsOneVariable, annotated);
            if (keyIsOneVariable) {
                return KeyExpression.result();
            }
        }
        // A guard's key over a null argument is no key: SpEL would make "acme:" + null the text "acme:null", which
        // no record has, while the query finds the rows whose column IS NULL. (A put's key is merely useless then.)
        int[] nullMeansNoKey = put ? new int[0] : variables.stream().filter(parameters::containsKey)
                .mapToInt(parameters::get).distinct().toArray();
        return KeyExpression.spel(parsed, parameters, KeyEvaluationContext.tools(checked.classLoader()), usesResult,
                nullMeansNoKey);
    }

    /**
     * The keys of a guard whose key is one parameter holding many keys (a collection or an array), or {@code null}
     * when its key is something else.
     *
     * @param elementKey the annotation's {@code elementKey}: SpEL over {@code #e} and the parameters ({@code ""}: the
     *                   element itself)
     * @throws InvalidBloomAnnotationException when the keys cannot work as written
     */
    @Nullable KeyBatch parseBatch(String key, String elementKey, AnnotatedMethod annotated) {
        int index = parameterItIs(key, annotated);
        Class<?> type = (index < 0) ? Object.class
                : annotated.parameterType(index).resolve(annotated.method().getParameterTypes()[index]);
        boolean many = Iterable.class.isAssignableFrom(type) || (type.isArray() && !KeyCanonicalizer.isSupportedType(type));
        if (!many) {
            if (!elementKey.isBlank()) {
                throw annotated.invalid("elementKey is set, but the key is not a parameter that is a collection or array",
                        "Name the parameter that holds the keys, e.g. key = \"#ids\", or remove elementKey");
            }
            return null;
        }
        if (elementKey.isBlank()) {
            checkParameterKeyType(index, true, annotated);
            return KeyBatch.of(index, type, null, -1, annotated);
        }
        Checked checked = check(elementKey, "element key expression", false, true, annotated);
        // null means no key, for the element as for a parameter: the element is kept and the query decides
        int[] nullMeansNoKey = checked.variables().stream().filter(checked.parameters()::containsKey)
                .mapToInt(checked.parameters()::get).distinct().toArray();
        if (!checked.variables().contains(ELEMENT)) {
            throw annotated.invalid("elementKey does not use #e, so every element would have the same key",
                    "Compute each element's key from #e, e.g. elementKey = \"#e.tenant + ':' + #e.sku\"");
        }
        KeyExpression perElement = KeyExpression.spel(checked.parsed(), checked.parameters(),
                KeyEvaluationContext.tools(checked.classLoader()), false, nullMeansNoKey);
        return KeyBatch.of(index, type, perElement, annotated.parameterCount(), annotated);
    }

    /** The index of the parameter a key expression is as it is ({@code ""}: a single parameter), or -1. */
    private int parameterItIs(String expression, AnnotatedMethod annotated) {
        if (expression.isBlank()) {
            return (annotated.parameterCount() == 1) ? 0 : -1;
        }
        Checked checked = check(expression, "key expression", false, annotated);
        boolean oneVariable = checked.parsed().getAST() instanceof VariableReference && checked.variables().size() == 1;
        Integer index = oneVariable ? checked.parameters().get(checked.variables().get(0)) : null;
        return (index != null) ? index : -1;
    }

    /**
     * The {@code condition} of a {@code @BloomRemove}: a SpEL expression over the parameters and {@code #result}, which
     * the call must make {@code true}.
     *
     * @throws InvalidBloomAnnotationException when the expression cannot work
     */
    KeyExpression parseCondition(String expression, AnnotatedMethod annotated) {
        Checked checked = check(expression, "condition", true, annotated);
        Class<?> returned = annotated.returnClass();
        if (checked.usesResult() && (returned == void.class || returned == Void.class)) {
            throw annotated.invalid("the condition uses #result, but the method returns nothing",
                    "Return what the delete deleted (a count, true, the deleted entity), or base the condition on the"
                            + " parameters");
        }
        return KeyExpression.spel(checked.parsed(), checked.parameters(),
                KeyEvaluationContext.tools(checked.classLoader()), checked.usesResult(), new int[0]);
    }

    /**
     * Parses {@code expression} (the annotation's {@code what}) and checks that it names only parameters of the
     * method, and {@code #result} where {@code resultAllowed}, and reaches no bean.
     */
    private Checked check(String expression, String what, boolean resultAllowed, AnnotatedMethod annotated) {
        return check(expression, what, resultAllowed, false, annotated);
    }

    /** As above; {@code withElement}: the expression may also name {@code #e}, one past the last parameter. */
    private Checked check(String expression, String what, boolean resultAllowed, boolean withElement,
            AnnotatedMethod annotated) {
        Method method = annotated.method();
        int parameterCount = annotated.parameterCount();
        ClassLoader classLoader = (method.getDeclaringClass().getClassLoader() != null)
                ? method.getDeclaringClass().getClassLoader() : ClassUtils.getDefaultClassLoader();
        SpelExpression parsed;
        try {
            parsed = (SpelExpression) new SpelExpressionParser(
                    new SpelParserConfiguration(SpelCompilerMode.MIXED, classLoader)).parseExpression(expression);
        }
        catch (ParseException ex) {
            throw annotated.invalid(what + " does not parse: " + ex.getMessage(),
                    "Write a SpEL expression over the parameters, e.g. " + (what.equals("condition")
                            ? "condition = \"#result.deleted\"" : "key = \"#id\""), ex);
        }
        String[] names = parameterNames(method, parameterCount);
        Map<String, Integer> parameters = KeyEvaluationContext.parameterVariables(names, parameterCount);
        if (withElement) {
            Map<String, Integer> withE = new java.util.HashMap<>(parameters);
            withE.put(ELEMENT, parameterCount);
            parameters = Map.copyOf(withE);
        }
        List<String> variables = new ArrayList<>();
        SpelTree.collectVariables(parsed.getAST(), variables);
        if (SpelTree.containsBeanReference(parsed.getAST())) {
            // Spring's cache annotations resolve @name; these expressions have no bean resolver, so every call
            // would fail to compute its key.
            throw annotated.invalid(
                    what + " refers to a bean (@name), which bloom-guard key expressions cannot reach",
                    "Compute the key from the parameters, e.g. key = \"#tenant + ':' + #id\", or pass the value in");
        }
        boolean usesResult = false;
        for (String variable : variables) {
            if (variable.equals("root")) {
                throw annotated.invalid(what + " uses #root, which here is not Spring Cache's root object"
                        + " (#root.args, #root.method do not exist)", "Name the parameters instead: #p0, #p1, … or their names");
            }
            if (variable.equals("result")) {
                if (!resultAllowed) {
                    throw annotated.invalid("#result is only known after the method ran, too late to guard it",
                            "Compute the key from the parameters");
                }
                usesResult = true;
            }
            else if (!parameters.containsKey(variable) && !variable.equals("this")) {
                throw annotated.invalid(what + " names #" + variable + ", which is not a parameter of the method"
                        + (names == null ? " (parameter names are not compiled in)" : "; parameters: " + String.join(", ", names)),
                        names == null
                                ? "Use #p0, #p1, … or compile with -parameters (Spring Boot's Maven and Gradle plugins do)"
                                : "Use one of the parameter names, #p0, #p1, …" + (resultAllowed ? " or #result" : "")
                                        + (withElement ? " or #e" : ""));
            }
        }
        return new Checked(parsed, parameters, variables, usesResult, classLoader);
    }

    /**
     * A key that is a parameter as it is must have a type with a canonical form (or one that may hold it);
     * {@code manyKeys}: or be a collection or array of such keys.
     */
    private static void checkParameterKeyType(int index, boolean manyKeys, AnnotatedMethod annotated) {
        ResolvableType parameter = annotated.parameterType(index);
        Class<?> type = parameter.resolve(annotated.method().getParameterTypes()[index]);
        String what = "the key is the parameter";
        if (manyKeys && (type.isArray() || Iterable.class.isAssignableFrom(type))) {
            what = "the keys are the elements of the parameter";
            // A put, and a guard's batch, takes a collection or array of keys, one key per element.
            ResolvableType element = type.isArray() ? parameter.getComponentType() : parameter.as(Iterable.class).getGeneric(0);
            type = ClassUtils.resolvePrimitiveIfNecessary(element.resolve(Object.class));
        }
        if (!KeyCanonicalizer.isSupportedType(type) && !KeyCanonicalizer.mayHoldSupportedType(type)) {
            throw annotated.invalid(what + " of type " + type.getTypeName() + ", which has no canonical key form",
                    "Pass a whole number, String, UUID or enum, or add key = \"...\" that yields one (e.g. \"#p0.id\")");
        }
    }

    /**
     * A key read from the result needs a result that holds it once the method returns, or a promise bloom-guard
     * can watch deliver it ({@link ResultKind}); {@code keyIsResult} when the expression is {@code #result}
     * itself, which must then be a key, or keys.
     */
    private static void checkResultKeyType(boolean keyIsResult, AnnotatedMethod annotated) {
        ResolvableType returned = annotated.returnType();
        Class<?> type = annotated.returnClass();
        if (type == void.class || type == Void.class) {
            throw annotated.invalid("the key uses #result, but the method returns nothing",
                    "Return the saved entity or its key, or compute the key from the parameters");
        }
        String what = "the method's result";
        ResultKind kind = ResultKind.of(type);
        if (kind == ResultKind.UNWATCHABLE) {
            throw annotated.invalid("the key uses #result, which would be the " + type.getSimpleName()
                            + " itself, and bloom-guard cannot watch a " + type.getSimpleName() + " for the value it delivers",
                    "Return a CompletableFuture, a Mono or a Flux (#result is then its value), or compute the key from"
                            + " the parameters");
        }
        if (kind.deferred()) {
            // Mono<T>, Flux<T>, CompletionStage<T>, CompletableFuture<T>: #result is a T.
            String promise = type.getSimpleName();
            type = returned.getGeneric(0).resolve(Object.class);
            what = (kind == ResultKind.FLUX) ? "each element of the Flux" : "the value of the " + promise;
            if (type == Void.class) {
                throw annotated.invalid("the key uses #result, but the method's " + promise + "<Void> delivers no value",
                        "Deliver the saved entity or its key, or compute the key from the parameters");
            }
        }
        if (keyIsResult && !KeyCanonicalizer.isSupportedType(type) && !KeyCanonicalizer.mayHoldSupportedType(type)
                && !Iterable.class.isAssignableFrom(type) && !type.isArray()) {
            throw annotated.invalid("the key is " + what + ", of type " + type.getTypeName()
                    + ", which has no canonical key form", "Name the key inside the result, e.g. key = \"#result.id\"");
        }
    }

    /** An expression that parsed, and the variables it names. */
    private record Checked(SpelExpression parsed, Map<String, Integer> parameters, List<String> variables,
            boolean usesResult, ClassLoader classLoader) {
    }

    /**
     * The names of the declared parameters: without a {@code suspend} function's {@code Continuation}, which Kotlin
     * reflection leaves out already and plain reflection does not.
     */
    private String @Nullable [] parameterNames(Method method, int parameterCount) {
        String[] names = parameterNames.getParameterNames(method);
        return (names != null && names.length > parameterCount) ? Arrays.copyOf(names, parameterCount) : names;
    }
}
