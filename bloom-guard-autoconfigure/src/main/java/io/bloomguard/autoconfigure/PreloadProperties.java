package io.bloomguard.autoconfigure;

import org.jspecify.annotations.Nullable;

/**
 * {@code bloom-guard.filters.<name>.preload.*}: the zero-code preload.
 *
 * <p>Internal: public for bloom-guard's own packages, not part of its API; it may change in any version.
 * @hidden
 */
public class PreloadProperties {

    /**
     * Query whose first column yields every key, run through the application's DataSource at startup, e.g.
     * "SELECT id FROM users".
     */
    private @Nullable String sql;

    public @Nullable String getSql() {
        return sql;
    }

    public void setSql(@Nullable String sql) {
        this.sql = sql;
    }
}
