package example.consumer;

import io.bloomguard.annotation.BloomGuarded;
import org.springframework.stereotype.Service;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/** An in-memory store standing in for a database; counts the lookups that reach it. */
@Service
public class CustomerStore {

    private final Map<Long, String> names = Map.of(1L, "Ada", 2L, "Grace", 3L, "Linus");

    private final AtomicInteger lookups = new AtomicInteger();

    @BloomGuarded(filter = "customers")
    public Optional<String> findById(Long id) {
        lookups.incrementAndGet();
        return Optional.ofNullable(names.get(id));
    }

    public Stream<Long> ids() {
        return names.keySet().stream();
    }

    public int lookups() {
        return lookups.get();
    }
}
