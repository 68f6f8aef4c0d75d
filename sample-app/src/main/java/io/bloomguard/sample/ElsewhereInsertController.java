package io.bloomguard.sample;

import io.bloomguard.registry.NamedBloomFilter;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.http.HttpStatus;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

import java.sql.PreparedStatement;
import java.util.Objects;

/**
 * {@code POST /demo/insert-elsewhere}: inserts a user the way another program would, with plain SQL, bypassing
 * {@link UserRepository#save} and its {@code @BloomPut}. Its id reaches the {@code users} filter only through the
 * filter's change feed ({@code feed.*} in {@code application.yml}), within a poll interval; without a feed,
 * {@code GET /users/{id}} would answer 404 for it until the next rebuild.
 */
@RestController
class ElsewhereInsertController {

    private final JdbcTemplate jdbc;
    private final NamedBloomFilter usersFilter;

    ElsewhereInsertController(JdbcTemplate jdbc, @Qualifier("users") NamedBloomFilter usersFilter) {
        this.jdbc = jdbc;
        this.usersFilter = usersFilter;
    }

    @PostMapping("/demo/insert-elsewhere")
    @ResponseStatus(HttpStatus.CREATED)
    InsertedElsewhere insert() {
        GeneratedKeyHolder keys = new GeneratedKeyHolder();
        jdbc.update(connection -> {
            PreparedStatement insert = connection.prepareStatement(
                    "INSERT INTO users (name, email) VALUES (?, ?)", new String[] { "id" });
            insert.setString(1, "Written elsewhere");
            insert.setString(2, "elsewhere@example.com");
            return insert;
        }, keys);
        long id = Objects.requireNonNull(keys.getKey(), "no id generated").longValue();
        return new InsertedElsewhere(id, usersFilter.mightContain(id));
    }

    /**
     * @param id the new user's id
     * @param inFilterYet whether the filter held it right after the insert: almost always not, until the feed's next
     *     poll
     */
    record InsertedElsewhere(long id, boolean inFilterYet) {
    }
}
