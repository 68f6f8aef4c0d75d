package io.bloomguard.guard;

import io.bloomguard.testapp.TestApplication;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.stereotype.Component;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The test application with {@code spring.main.lazy-initialization=true}: beans whose methods carry bloom-guard
 * annotations are still created at startup (so their annotations are checked then); other beans stay lazy.
 * Spring Data repositories need nothing from bloom-guard here: Spring Data sets their lazy-init itself, from
 * its own bootstrap mode, which lazy initialization leaves alone.
 */
@SpringBootTest(classes = { TestApplication.class, LazyInitializedApplicationTest.Unrelated.class },
        properties = "spring.main.lazy-initialization=true")
@TestPropertySource(locations = "classpath:testapp.properties")
class LazyInitializedApplicationTest {

    @Autowired
    ConfigurableApplicationContext context;

    @Test
    void annotatedBeansAreCreatedAtStartupAndOthersStayLazy() {
        var beans = context.getBeanFactory();
        assertThat(beans.containsSingleton("lookups")).as("guarded class").isTrue();
        assertThat(beans.containsSingleton("unrelated")).as("an unrelated bean").isFalse();
    }

    @Component("unrelated")
    static class Unrelated {
    }
}
