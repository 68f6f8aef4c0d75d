package io.bloomguard.walk;

import io.bloomguard.annotation.BloomGuarded;
import io.bloomguard.annotation.BloomPut;
import org.springframework.data.jpa.repository.JpaRepository;

import java.util.List;
import java.util.Optional;

/** The overlap walk's repository, guarded as the docs tell users to: reads through the guard, {@code save} puts. */
public interface OverlapRows extends JpaRepository<OverlapRow, Long> {

    @Override
    @BloomGuarded(filter = "overlap")
    Optional<OverlapRow> findById(Long id);

    /** Runs with only the ids that might exist: what the walk counts as found, the rest as rejected. */
    @Override
    @BloomGuarded(filter = "overlap")
    List<OverlapRow> findAllById(Iterable<Long> ids);

    @Override
    @BloomPut(filter = "overlap", key = "#result.id")
    <S extends OverlapRow> S save(S row);
}
