package io.bloomguard.guard;

import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.BeanReference;
import org.springframework.expression.spel.ast.VariableReference;

import java.util.List;

/** What a parsed SpEL expression's tree names: its variables, and whether it reaches a bean. */
final class SpelTree {

    private SpelTree() {
    }

    static boolean containsBeanReference(SpelNode node) {
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

    /** Adds the name of every variable under {@code node} ({@code #id} as {@code id}) to {@code into}, in order. */
    static void collectVariables(SpelNode node, List<String> into) {
        if (node instanceof VariableReference) {
            into.add(node.toStringAST().substring(1));
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            collectVariables(node.getChild(i), into);
        }
    }
}
