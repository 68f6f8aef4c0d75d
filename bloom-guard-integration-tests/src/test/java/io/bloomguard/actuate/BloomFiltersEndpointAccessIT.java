package io.bloomguard.actuate;

import com.jayway.jsonpath.JsonPath;
import io.bloomguard.registry.BloomFilterRegistry;
import io.bloomguard.registry.GuardMode;
import io.bloomguard.testsupport.redis.RedisServerExtension;
import io.bloomguard.testsupport.redis.RedisServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import java.net.http.HttpResponse;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The endpoint's writes (rebuild, test a key, switch the mode) are refused over HTTP unless the application opens
 * them with {@code management.endpoint.bloomfilters.access=unrestricted}; its reads answer either way.
 */
@Timeout(120)
@ExtendWith(RedisServerExtension.class)
class BloomFiltersEndpointAccessIT {

    private RedisServerProcess redis;
    private ConfigurableApplicationContext context;

    @BeforeEach
    void remember(RedisServerProcess server) {
        redis = server;
    }

    @AfterEach
    void stop() {
        if (context != null) {
            context.close();
        }
    }

    @Test
    void byDefaultEveryWriteIsRefusedAndTheFilterIsUntouched() {
        Http http = start();

        for (String write : new String[] { "{\"action\":\"test\",\"key\":\"42\"}", "{\"action\":\"rebuild\"}",
                "{\"action\":\"mode\",\"mode\":\"off\"}" }) {
            HttpResponse<String> refused = http.post("/actuator/bloomfilters/users", write);
            assertThat(refused.statusCode()).as("POST %s", write).isEqualTo(405);
            assertThat(refused.body()).doesNotContain("mightContain");
        }
        assertThat(http.get("/actuator/bloomfilters/users").statusCode()).isEqualTo(200);
        assertThat(JsonPath.<String>read(http.get("/actuator/bloomfilters").body(), "$.filters.users.mode"))
                .isEqualTo("enforce");
        BloomFilterRegistry registry = context.getBean(BloomFilterRegistry.class);
        assertThat(registry.get("users").mode()).isEqualTo(GuardMode.ENFORCE);
        assertThat(registry.get("users").history().lastRebuild()).isNull();
    }

    @Test
    void theApplicationOpensTheWritesWithOneProperty() {
        Http http = start("management.endpoint.bloomfilters.access=unrestricted");

        HttpResponse<String> tested = http.post("/actuator/bloomfilters/users", "{\"action\":\"test\",\"key\":\"42\"}");

        assertThat(tested.statusCode()).isEqualTo(200);
        assertThat(tested.body()).isEqualTo("{\"mightContain\":true}");
    }

    private Http start(String... more) {
        context = new SpringApplicationBuilder(ActuatedApplication.class)
                .properties(Stream.concat(Stream.of(ActuatedApplication.properties(redis.port(), "access-it:")),
                        Stream.concat(Stream.of("server.port=0"), Stream.of(more))).toArray(String[]::new))
                .run();
        return new Http(((WebServerApplicationContext) context).getWebServer().getPort());
    }
}
