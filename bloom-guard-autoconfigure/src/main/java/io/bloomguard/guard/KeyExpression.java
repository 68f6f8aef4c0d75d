package io.bloomguard.guard;

import org.jspecify.annotations.Nullable;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.Expression;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

/**
 * How one annotated method computes its key from a call, decided once at startup. A key that is just one
 * parameter (the default, or an expression such as {@code #id}) is read straight from the arguments: SpEL
 * costs more than the filter check itself, so it is kept for expressions that need it.
 */
abstract sealed class KeyExpression {

    /** The key for a call; {@code result} is the method's return value for {@code @BloomPut}, else null. */
    abstract @Nullable Object evaluate(Object[] args, @Nullable Object result);

    /** Whether the key needs the method's return value. */
    abstract boolean usesResult();

    static KeyExpression argument(int index) {
        return new Argument(index);
    }

    /**
     * A SpEL expression over the parameters of {@code method}: the annotated method itself, not a bridge method
     * a call may arrive through, whose parameters have no names. When an argument at one of the
     * {@code nullMeansNoKey} indexes is null, there is no key ({@code null}), whatever the expression would make of it.
     */
    static KeyExpression spel(Expression expression, Method method, ParameterNameDiscoverer names, boolean usesResult,
            int[] nullMeansNoKey) {
        return new Spel(expression, method, names, usesResult, nullMeansNoKey);
    }

    /**
     * For a method that saves many entities and returns them (Spring Data's {@code saveAll}): the keys of every
     * saved entity, each computed by {@code perEntity} as if the entity had been saved on its own, by a method
     * taking it as its one argument and returning it.
     */
    static KeyExpression eachElementOfResult(KeyExpression perEntity) {
        return new EachElementOfResult(perEntity);
    }

    private static final class EachElementOfResult extends KeyExpression {

        private final KeyExpression perEntity;

        EachElementOfResult(KeyExpression perEntity) {
            this.perEntity = perEntity;
        }

        @Override
        @Nullable Object evaluate(Object[] args, @Nullable Object result) {
            if (!(result instanceof Iterable<?> saved)) {
                return null;
            }
            List<Object> keys = new ArrayList<>();
            for (Object entity : saved) {
                keys.add(perEntity.evaluate(new Object[] { entity }, entity));
            }
            return keys;
        }

        @Override
        boolean usesResult() {
            return true;
        }
    }

    private static final class Argument extends KeyExpression {

        private final int index;

        Argument(int index) {
            this.index = index;
        }

        @Override
        @Nullable Object evaluate(Object[] args, @Nullable Object result) {
            return args[index];
        }

        @Override
        boolean usesResult() {
            return false;
        }
    }

    private static final class Spel extends KeyExpression {

        private final Expression expression;
        private final Method method;
        private final ParameterNameDiscoverer names;
        private final boolean usesResult;
        private final int[] nullMeansNoKey;

        Spel(Expression expression, Method method, ParameterNameDiscoverer names, boolean usesResult,
                int[] nullMeansNoKey) {
            this.expression = expression;
            this.method = method;
            this.names = names;
            this.usesResult = usesResult;
            this.nullMeansNoKey = nullMeansNoKey;
        }

        @Override
        @Nullable Object evaluate(Object[] args, @Nullable Object result) {
            for (int index : nullMeansNoKey) {
                if (args[index] == null) {
                    return null;
                }
            }
            MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(args, method, args, names);
            if (usesResult) {
                context.setVariable("result", result);
            }
            return expression.getValue(context);
        }

        @Override
        boolean usesResult() {
            return usesResult;
        }
    }
}
