package io.bloomguard.testapp;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import org.hibernate.annotations.Generated;

import java.util.UUID;

/**
 * An entity whose insert waits for the flush (its id comes from a sequence), with a code the database fills in
 * on insert: the code is known only once the row is flushed, at the commit.
 */
@Entity
public class Ticket {

    @Id
    @GeneratedValue(strategy = GenerationType.SEQUENCE)
    private Long id;

    private String title;

    @Generated
    @Column(insertable = false, updatable = false)
    private UUID code;

    protected Ticket() {
    }

    public Ticket(String title) {
        this.title = title;
    }

    public Long getId() {
        return id;
    }

    public UUID getCode() {
        return code;
    }
}
