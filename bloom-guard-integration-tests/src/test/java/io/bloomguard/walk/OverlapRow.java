package io.bloomguard.walk;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.PostLoad;
import jakarta.persistence.PostPersist;
import jakarta.persistence.Table;
import jakarta.persistence.Transient;
import org.springframework.data.domain.Persistable;

/** A row of the overlap walk's table, with an id the walk chooses (so that {@code save} inserts, never merges). */
@Entity
@Table(name = "overlap_rows")
public class OverlapRow implements Persistable<Long> {

    @Id
    private Long id;

    @Transient
    private boolean fresh = true;

    protected OverlapRow() {
    }

    OverlapRow(long id) {
        this.id = id;
    }

    @Override
    public Long getId() {
        return id;
    }

    @Override
    public boolean isNew() {
        return fresh;
    }

    @PostLoad
    @PostPersist
    void stored() {
        fresh = false;
    }
}
