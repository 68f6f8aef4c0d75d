package io.bloomguard.guard;

import org.jspecify.annotations.Nullable;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.ConstructorResolver;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.IndexAccessor;
import org.springframework.expression.MethodResolver;
import org.springframework.expression.OperatorOverloader;
import org.springframework.expression.PropertyAccessor;
import org.springframework.expression.TypeComparator;
import org.springframework.expression.TypeConverter;
import org.springframework.expression.TypeLocator;
import org.springframework.expression.TypedValue;
import org.springframework.expression.spel.support.StandardEvaluationContext;
import org.springframework.expression.spel.support.StandardTypeLocator;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a key expression sees during one call: the arguments as variables ({@code #id}, {@code #p0},
 * {@code #a0}), the method's result as {@code #result}, the arguments array as the root object, as Spring's
 * {@code MethodBasedEvaluationContext} has them; and for everything else (property access, method calls, types)
 * a {@link StandardEvaluationContext} set up once per method and shared by its calls, as Spring's cache
 * annotations share theirs.
 *
 * <p>A {@code MethodBasedEvaluationContext} per call would find the parameter names by reflection and copy every
 * argument into a variable map, on each call; here a variable is an index into the arguments, found once.
 */
final class KeyEvaluationContext implements EvaluationContext {

    private final StandardEvaluationContext tools;
    private final Map<String, Integer> parameters;
    private final Object[] args;
    private final @Nullable Object result;
    private @Nullable Map<String, @Nullable Object> assigned;

    KeyEvaluationContext(StandardEvaluationContext tools, Map<String, Integer> parameters, Object[] args,
            @Nullable Object result) {
        this.tools = tools;
        this.parameters = parameters;
        this.args = args;
        this.result = result;
    }

    /**
     * The tools the key expressions of one method share: types resolved by {@code classLoader} (the method's),
     * every part created now, so that the calls, on many threads, only read it.
     */
    static StandardEvaluationContext tools(ClassLoader classLoader) {
        StandardEvaluationContext tools = new StandardEvaluationContext();
        tools.setTypeLocator(new StandardTypeLocator(classLoader));
        tools.getPropertyAccessors();
        tools.getIndexAccessors();
        tools.getConstructorResolvers();
        tools.getMethodResolvers();
        tools.getTypeConverter();
        tools.getTypeComparator();
        tools.getOperatorOverloader();
        return tools;
    }

    /**
     * The variable names of a method's parameters: {@code #a0} and {@code #p0} for the first, and its name when
     * compiled in, a later one taking a name an earlier one has (as in {@code MethodBasedEvaluationContext}).
     */
    static Map<String, Integer> parameterVariables(String @Nullable [] names, int parameterCount) {
        Map<String, Integer> variables = new HashMap<>();
        for (int i = 0; i < parameterCount; i++) {
            variables.put("a" + i, i);
            variables.put("p" + i, i);
            if (names != null) {
                variables.put(names[i], i);
            }
        }
        return Map.copyOf(variables);
    }

    @Override
    public @Nullable Object lookupVariable(String name) {
        if (assigned != null && assigned.containsKey(name)) {
            return assigned.get(name);
        }
        if (name.equals("result")) {
            return result;
        }
        Integer index = parameters.get(name);
        return (index != null) ? args[index] : null;
    }

    /** For an expression that assigns a variable ({@code #x = ...}): seen by this call only. */
    @Override
    public void setVariable(String name, @Nullable Object value) {
        if (assigned == null) {
            assigned = new HashMap<>();
        }
        assigned.put(name, value);
    }

    @Override
    public TypedValue getRootObject() {
        return new TypedValue(args);
    }

    @Override
    public List<PropertyAccessor> getPropertyAccessors() {
        return tools.getPropertyAccessors();
    }

    @Override
    public List<IndexAccessor> getIndexAccessors() {
        return tools.getIndexAccessors();
    }

    @Override
    public List<ConstructorResolver> getConstructorResolvers() {
        return tools.getConstructorResolvers();
    }

    @Override
    public List<MethodResolver> getMethodResolvers() {
        return tools.getMethodResolvers();
    }

    @Override
    public @Nullable BeanResolver getBeanResolver() {
        return null; // key expressions may not name beans: refused at startup
    }

    @Override
    public TypeLocator getTypeLocator() {
        return tools.getTypeLocator();
    }

    @Override
    public TypeConverter getTypeConverter() {
        return tools.getTypeConverter();
    }

    @Override
    public TypeComparator getTypeComparator() {
        return tools.getTypeComparator();
    }

    @Override
    public OperatorOverloader getOperatorOverloader() {
        return tools.getOperatorOverloader();
    }
}
