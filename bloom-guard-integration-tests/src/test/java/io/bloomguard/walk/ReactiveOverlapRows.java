package io.bloomguard.walk;

import io.bloomguard.annotation.BloomPut;
import org.springframework.data.repository.reactive.ReactiveCrudRepository;
import reactor.core.publisher.Mono;

/**
 * The overlap walk's reactive repository, written as the docs tell users to: {@code save} puts, and the inherited
 * {@code saveAll} takes that put for each row it delivers.
 */
public interface ReactiveOverlapRows extends ReactiveCrudRepository<ReactiveOverlapRow, Long> {

    @Override
    @BloomPut(filter = "overlap", key = "#result.id")
    <S extends ReactiveOverlapRow> Mono<S> save(S row);
}
