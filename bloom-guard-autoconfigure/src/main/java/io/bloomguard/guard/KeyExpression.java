package io.bloomguard.guard;

import org.jspecify.annotations.Nullable;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.support.StandardEvaluationContext;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * How one annotated method computes its key from a call, decided once at startup. A key that is just one
 * parameter (the default, or an expression such as {@code #id}) or just the result ({@code #result}) is read
 * straight from the call: SpEL costs more than the filter check itself, so it is kept for expressions that need
 * it, and those are parsed once and compiled by SpEL once they have run often enough.
 */
abstract sealed class KeyExpression {

    /** The key for a call; {@code result} is the method's return value for {@code @BloomPut}, else null. */
    abstract @Nullable Object evaluate(Object[] args, @Nullable Object result);

    /** Whether the key needs the method's return value. */
    abstract boolean usesResult();

    static KeyExpression argument(int index) {
        return new Argument(index);
    }

    static KeyExpression result() {
        return new Result();
    }

    /**
     * A SpEL expression over the parameters of an annotated method, each a variable under the names in
     * {@code parameters} ({@code #id}, {@code #p0}, {@code #a0}); {@code tools} is what the expression uses for
     * everything else (property access, method calls, types), shared by all calls. When an argument at one of the
     * {@code nullMeansNoKey} indexes is null, there is no key ({@code null}), whatever the expression would make of it.
     */
    static KeyExpression spel(Expression expression, Map<String, Integer> parameters, StandardEvaluationContext tools,
            boolean usesResult, int[] nullMeansNoKey) {
        return new Spel(expression, parameters, tools, usesResult, nullMeansNoKey);
    }

    /**
     * For a method that saves many entities and returns them (Spring Data's {@code saveAll}): the keys of every
     * saved entity, each computed by {@code perEntity} as if the entity had been saved on its own, by a method
     * taking it as its one argument and returning it.
     */
    static KeyExpression eachElementOfResult(KeyExpression perEntity) {
        return new EachElementOfResult(perEntity);
    }

    /**
     * For a method that saves many entities and delivers each as it is saved (a reactive repository's
     * {@code saveAll}, whose {@code Flux} is keyed element by element): the key of the one delivered, computed by
     * {@code perEntity} as if it had been saved on its own.
     */
    static KeyExpression asSavedAlone(KeyExpression perEntity) {
        return new SavedAlone(perEntity);
    }

    private static final class SavedAlone extends KeyExpression {

        private final KeyExpression perEntity;

        SavedAlone(KeyExpression perEntity) {
            this.perEntity = perEntity;
        }

        @Override
        @Nullable Object evaluate(Object[] args, @Nullable Object result) {
            return (result != null) ? perEntity.evaluate(new Object[] { result }, result) : null;
        }

        @Override
        boolean usesResult() {
            return true;
        }
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

    private static final class Result extends KeyExpression {

        @Override
        @Nullable Object evaluate(Object[] args, @Nullable Object result) {
            return result;
        }

        @Override
        boolean usesResult() {
            return true;
        }
    }

    private static final class Spel extends KeyExpression {

        private final Expression expression;
        private final Map<String, Integer> parameters;
        private final StandardEvaluationContext tools;
        private final boolean usesResult;
        private final int[] nullMeansNoKey;

        Spel(Expression expression, Map<String, Integer> parameters, StandardEvaluationContext tools,
                boolean usesResult, int[] nullMeansNoKey) {
            this.expression = expression;
            this.parameters = parameters;
            this.tools = tools;
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
            return expression.getValue(new KeyEvaluationContext(tools, parameters, args, usesResult ? result : null));
        }

        @Override
        boolean usesResult() {
            return usesResult;
        }
    }
}
