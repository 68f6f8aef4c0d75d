package example.consumer;

import io.bloomguard.preload.BloomKeySource;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/** A small application guarded by bloom-guard: a local filter of customer ids, loaded from the store itself. */
@SpringBootApplication
public class ConsumerApplication {

    public static void main(String[] args) {
        SpringApplication.run(ConsumerApplication.class, args);
    }

    @Bean
    BloomKeySource customerIds(CustomerStore customers) {
        return BloomKeySource.of("customers", customers::ids);
    }
}
