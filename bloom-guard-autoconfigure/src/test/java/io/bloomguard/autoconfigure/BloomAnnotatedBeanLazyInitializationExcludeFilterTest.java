package io.bloomguard.autoconfigure;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.LazyInitializationBeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.io.IOException;
import java.io.InputStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Under lazy initialization the exclude filter looks at every bean's methods, including beans the application
 * never uses. One whose method signatures name a class missing at runtime (an optional dependency left out)
 * must stay lazy, as it would without bloom-guard, not fail startup.
 */
class BloomAnnotatedBeanLazyInitializationExcludeFilterTest {

    /**
     * The bean is registered by class name, as component scanning does, and resolved through a class loader
     * that lacks {@link Missing}: the context reads its annotations from the class file, and only reflection
     * over its methods (the exclude filter's) meets the missing class.
     */
    @Test
    void aBeanWhoseMethodsCannotBeReadStaysLazyAndStartupGoesOn() {
        new ApplicationContextRunner()
                .withClassLoader(new LoaderWithoutMissing())
                .withConfiguration(AutoConfigurations.of(BloomGuardAutoConfiguration.class))
                .withInitializer(context -> {
                    context.addBeanFactoryPostProcessor(new LazyInitializationBeanFactoryPostProcessor());
                    ((BeanDefinitionRegistry) context).registerBeanDefinition("holder",
                            new RootBeanDefinition(Holder.class.getName()));
                })
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBeanFactory().containsSingleton("holder")).isFalse();
                });
    }

    /** Stands for a class of an optional dependency that is not on the classpath. */
    static class Missing {
    }

    static class Holder {

        public Missing missing() {
            return new Missing();
        }
    }

    /** Defines {@link Holder} itself, and cannot find {@link Missing}: reading Holder's methods then fails. */
    static final class LoaderWithoutMissing extends ClassLoader {

        LoaderWithoutMissing() {
            super(BloomAnnotatedBeanLazyInitializationExcludeFilterTest.class.getClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (name.equals(Missing.class.getName())) {
                throw new ClassNotFoundException(name);
            }
            if (!name.equals(Holder.class.getName())) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> loaded = findLoadedClass(name);
                if (loaded != null) {
                    return loaded;
                }
                try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
                    byte[] bytes = in.readAllBytes();
                    return defineClass(name, bytes, 0, bytes.length);
                }
                catch (IOException ex) {
                    throw new ClassNotFoundException(name, ex);
                }
            }
        }
    }
}
