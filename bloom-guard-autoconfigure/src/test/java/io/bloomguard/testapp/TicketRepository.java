package io.bloomguard.testapp;

import io.bloomguard.annotation.BloomGuarded;
import io.bloomguard.annotation.BloomPut;
import org.springframework.data.jpa.repository.JpaRepository;

import java.util.Optional;
import java.util.UUID;

/** Keyed on a value the database generates when the insert is flushed. */
public interface TicketRepository extends JpaRepository<Ticket, Long> {

    @Override
    @BloomPut(filter = "tickets", key = "#result.code")
    <S extends Ticket> S save(S ticket);

    @BloomGuarded(filter = "tickets")
    Optional<Ticket> findByCode(UUID code);

    /** Not guarded here: for callers that guard with a filter of their own. */
    Optional<Ticket> findTicketByCode(UUID code);
}
