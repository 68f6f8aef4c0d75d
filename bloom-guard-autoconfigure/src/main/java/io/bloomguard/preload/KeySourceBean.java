package io.bloomguard.preload;

import java.util.stream.Stream;

/**
 * A {@link BloomKeySource} bean, named by its bean name in the preload's log and errors ({@code bean 'userIds'}):
 * a name the user finds in their code, where its own {@code toString} is an object identity, or the same
 * {@code BloomKeySource[users]} for every source of one filter.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public final class KeySourceBean implements BloomKeySource {

    private final String beanName;
    private final BloomKeySource source;

    public KeySourceBean(String beanName, BloomKeySource source) {
        this.beanName = beanName;
        this.source = source;
    }

    @Override
    public String filter() {
        return source.filter();
    }

    @Override
    public Stream<?> keys() {
        return source.keys();
    }

    @Override
    public String toString() {
        return "bean '" + beanName + "'";
    }
}
