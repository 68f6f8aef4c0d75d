package io.bloomguard.slice;

import io.bloomguard.annotation.BloomGuarded;
import io.bloomguard.annotation.BloomPut;
import org.springframework.data.repository.CrudRepository;

import java.util.Optional;

/** Tokens, with the guard in front of the lookup by id and every save keeping the filter complete. */
public interface TokenRepository extends CrudRepository<Token, String> {

    @Override
    @BloomGuarded(filter = "tokens")
    Optional<Token> findById(String id);

    @Override
    @BloomPut(filter = "tokens", key = "#result.id")
    <S extends Token> S save(S token);
}
