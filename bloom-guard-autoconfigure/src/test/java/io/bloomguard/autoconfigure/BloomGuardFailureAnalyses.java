package io.bloomguard.autoconfigure;

import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.io.support.SpringFactoriesLoader;

import java.util.List;

/** Runs bloom-guard's failure analyzers as Spring Boot finds them (through spring.factories). */
public final class BloomGuardFailureAnalyses {

    private BloomGuardFailureAnalyses() {
    }

    public static FailureAnalysis analyze(Throwable failure) {
        // Spring Boot's own analyzers need constructor arguments that only a running SpringApplication has.
        List<FailureAnalyzer> analyzers = SpringFactoriesLoader
                .forDefaultResourceLocation(BloomGuardFailureAnalyses.class.getClassLoader())
                .load(FailureAnalyzer.class, null, SpringFactoriesLoader.FailureHandler.handleMessage((message, ex) -> { }));
        for (FailureAnalyzer analyzer : analyzers) {
            if (analyzer instanceof BloomGuardFailureAnalyzer) {
                return analyzer.analyze(failure);
            }
        }
        throw new AssertionError("BloomGuardFailureAnalyzer is not registered in META-INF/spring.factories");
    }
}
