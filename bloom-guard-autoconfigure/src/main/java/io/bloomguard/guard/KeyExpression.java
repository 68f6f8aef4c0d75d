package io.bloomguard.guard;

import org.jspecify.annotations.Nullable;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.Expression;

import java.lang.reflect.Method;

/**
 * How one annotated method computes its key from a call, decided once at startup. A key that is just one
 * parameter (the default, or an expression such as {@code #id}) is read straight from the arguments: SpEL
 * costs more than the filter check itself, so it is kept for expressions that need it.
 */
abstract sealed class KeyExpression {

    /** The key for a call; {@code result} is the method's return value for {@code @BloomPut}, else null. */
    abstract @Nullable Object evaluate(Method method, Object[] args, @Nullable Object result);

    /** Whether the key needs the method's return value. */
    abstract boolean usesResult();

    static KeyExpression argument(int index) {
        return new Argument(index);
    }

    static KeyExpression spel(Expression expression, ParameterNameDiscoverer names, boolean usesResult) {
        return new Spel(expression, names, usesResult);
    }

    private static final class Argument extends KeyExpression {

        private final int index;

        Argument(int index) {
            this.index = index;
        }

        @Override
        @Nullable Object evaluate(Method method, Object[] args, @Nullable Object result) {
            return args[index];
        }

        @Override
        boolean usesResult() {
            return false;
        }
    }

    private static final class Spel extends KeyExpression {

        private final Expression expression;
        private final ParameterNameDiscoverer names;
        private final boolean usesResult;

        Spel(Expression expression, ParameterNameDiscoverer names, boolean usesResult) {
            this.expression = expression;
            this.names = names;
            this.usesResult = usesResult;
        }

        @Override
        @Nullable Object evaluate(Method method, Object[] args, @Nullable Object result) {
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
