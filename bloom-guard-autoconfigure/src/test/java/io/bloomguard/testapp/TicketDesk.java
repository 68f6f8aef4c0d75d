package io.bloomguard.testapp;

import io.bloomguard.annotation.BloomGuarded;
import io.bloomguard.annotation.BloomPut;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Opens tickets and answers with views of them made as they are saved, before the flush: the codes the database fills
 * in then never reach the views.
 */
@Service
public class TicketDesk {

    private final TicketRepository tickets;

    public TicketDesk(TicketRepository tickets) {
        this.tickets = tickets;
    }

    @Transactional
    @BloomPut(filter = "flushed", key = "#result.![code]")
    public List<TicketView> open(List<String> titles) {
        return tickets.saveAll(titles.stream().map(Ticket::new).toList()).stream()
                .map(ticket -> new TicketView(ticket.getCode()))
                .toList();
    }

    @BloomGuarded(filter = "flushed")
    public Optional<Ticket> find(UUID code) {
        return tickets.findTicketByCode(code);
    }

    /** A ticket as the desk shows it. */
    public record TicketView(UUID code) {
    }
}
