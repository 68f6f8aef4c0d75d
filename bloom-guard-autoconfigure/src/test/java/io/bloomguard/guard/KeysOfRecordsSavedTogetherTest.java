package io.bloomguard.guard;

import io.bloomguard.testapp.Customer;
import io.bloomguard.testapp.CustomerRepository;
import io.bloomguard.testapp.CustomerService;
import io.bloomguard.testapp.TestApplication;
import io.bloomguard.testapp.Ticket;
import io.bloomguard.testapp.TicketDesk;
import io.bloomguard.testapp.TicketRepository;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.TestPropertySource;

import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Records saved together, whose keys are a collection that holds {@code null}s when the method returns: the database
 * fills them in at the flush (a {@code saveAll} under a {@code save} keyed on {@code #result.code}), or assigns them to
 * the entities passed in. They are found once saved, like a record saved alone; and when what the key expression reads
 * never shows the keys, the filter stops rejecting rather than reject them.
 */
@SpringBootTest(classes = TestApplication.class)
@TestPropertySource(locations = "classpath:testapp.properties")
class KeysOfRecordsSavedTogetherTest {

    @Autowired
    TicketRepository tickets;

    @Autowired
    TicketDesk desk;

    @Autowired
    JdbcTemplate jdbc;

    @Autowired
    CustomerService service;

    @Autowired
    CustomerRepository customers;

    @Test
    void recordsSavedTogetherAreFoundOnceTheDatabaseHasFilledInTheirKeys() {
        List<Ticket> saved = tickets.saveAll(List.of(new Ticket("together 1"), new Ticket("together 2"),
                new Ticket("together 3")));

        assertThat(saved).hasSize(3).allSatisfy(ticket -> {
            assertThat(ticket.getCode()).as("filled in by the database").isNotNull();
            assertThat(tickets.findByCode(ticket.getCode())).as("found through the filter").isPresent();
        });
    }

    @Test
    void recordsWhoseIdsTheWriteAssignsToTheEntitiesPassedInAreFound() {
        long now = System.nanoTime();
        List<Customer> registered = service.registerAll(List.of(new Customer("all-1-" + now, "t6", "a"),
                new Customer("all-2-" + now, "t6", "b")));

        assertThat(registered).allSatisfy(customer -> {
            assertThat(customer.getId()).as("assigned by the insert").isNotNull();
            assertThat(customers.findById(customer.getId())).as("found through the filter").isPresent();
        });
    }

    @Test
    void recordsReturnedWithoutTheKeysTheDatabaseFilledInAreNotRejected() {
        String title = "viewed " + UUID.randomUUID();

        List<TicketDesk.TicketView> views = desk.open(List.of(title + " 1", title + " 2"));

        assertThat(views).hasSize(2).allSatisfy(view -> assertThat(view.code()).as("never shown").isNull());
        List<UUID> codes = jdbc.queryForList("select code from ticket where title like ?", UUID.class, title + "%");
        assertThat(codes).hasSize(2).allSatisfy(code -> assertThat(desk.find(code)).as("ticket %s", code).isPresent());
    }
}
