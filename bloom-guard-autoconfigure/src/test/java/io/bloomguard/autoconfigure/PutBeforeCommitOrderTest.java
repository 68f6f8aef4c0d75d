package io.bloomguard.autoconfigure;

import io.bloomguard.annotation.BloomPut;
import io.bloomguard.guard.KeysInTransactionAdvisor;
import org.h2.Driver;
import org.junit.jupiter.api.Test;
import org.springframework.aop.Advisor;
import org.springframework.aop.aspectj.annotation.AnnotationAwareAspectJAutoProxyCreator;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.autoproxy.InfrastructureAdvisorAutoProxyCreator;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.interceptor.TransactionInterceptor;

import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where the advice that puts a result's key sits in a bean's proxy: inside Spring's transaction interceptor, so
 * that the key is in before the commit, with either auto-proxy creator Spring Boot picks (AspectJ's when
 * {@code aspectjweaver} is on the classpath, as with Spring Data JPA; the infrastructure one otherwise). Both
 * have the same precedence; the order they were declared in decides.
 */
class PutBeforeCommitOrderTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TransactionAutoConfiguration.class,
                    BloomGuardAutoConfiguration.class))
            .withPropertyValues("bloom-guard.filters.users.expected-size=100")
            .withBean(PlatformTransactionManager.class, () -> new DataSourceTransactionManager(
                    new SimpleDriverDataSource(new Driver(), "jdbc:h2:mem:put-order")))
            .withBean(UserWriter.class);

    @Test
    void withAspectJOnTheClasspathThePutRunsInsideTheTransaction() {
        runner.run(context -> {
            assertThat(autoProxyCreator(context)).isInstanceOf(AnnotationAwareAspectJAutoProxyCreator.class);
            assertPutInsideTransaction(context);
        });
    }

    @Test
    void withoutAspectJThePutRunsInsideTheTransaction() {
        runner.withClassLoader(new FilteredClassLoader("org.aspectj")).run(context -> {
            assertThat(autoProxyCreator(context)).isInstanceOf(InfrastructureAdvisorAutoProxyCreator.class);
            assertPutInsideTransaction(context);
        });
    }

    private static Object autoProxyCreator(AssertableApplicationContext context) {
        return context.getBean(AopConfigUtils.AUTO_PROXY_CREATOR_BEAN_NAME);
    }

    private static void assertPutInsideTransaction(AssertableApplicationContext context) {
        assertThat(context).hasNotFailed();
        List<Advisor> advisors = Arrays.asList(((Advised) context.getBean(UserWriter.class)).getAdvisors());
        int transaction = indexOf(advisors, advisor -> advisor.getAdvice() instanceof TransactionInterceptor);
        int put = indexOf(advisors, advisor -> advisor instanceof KeysInTransactionAdvisor);
        assertThat(transaction).as("transaction advisor").isNotNegative();
        assertThat(put).as("put-before-commit advisor, after (inside) the transaction's").isGreaterThan(transaction);
    }

    private static int indexOf(List<Advisor> advisors, java.util.function.Predicate<Advisor> test) {
        for (int i = 0; i < advisors.size(); i++) {
            if (test.test(advisors.get(i))) {
                return i;
            }
        }
        return -1;
    }

    public static class UserWriter {

        @Transactional
        @BloomPut(filter = "users", key = "#result")
        public long create(long id) {
            return id;
        }
    }
}
