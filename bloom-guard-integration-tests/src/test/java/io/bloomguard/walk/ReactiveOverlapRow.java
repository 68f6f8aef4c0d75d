package io.bloomguard.walk;

import org.springframework.data.annotation.Id;
import org.springframework.data.domain.Persistable;
import org.springframework.data.relational.core.mapping.Table;

/**
 * A row of the overlap walk's table as Spring Data R2DBC maps it. The walk chooses each id and only inserts through
 * this mapping, so every instance is new.
 */
@Table("OVERLAP_ROWS") // H2 keeps unquoted names in upper case
public class ReactiveOverlapRow implements Persistable<Long> {

    @Id
    private final Long id;

    ReactiveOverlapRow(Long id) {
        this.id = id;
    }

    @Override
    public Long getId() {
        return id;
    }

    @Override
    public boolean isNew() {
        return true;
    }
}
