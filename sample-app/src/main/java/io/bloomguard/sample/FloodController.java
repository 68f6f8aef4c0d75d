package io.bloomguard.sample;

import io.bloomguard.sample.UserController.UserView;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import java.util.Optional;

/**
 * {@code GET /flood/unguarded/{id}}, {@code /flood/cached/{id}} and {@code /flood/guarded/{id}}: a user, or 404, by
 * the three lookups of {@link FloodUserRepository}, so that a load generator can compare them on the same service
 * ({@code benchmarks/flood.sh}); {@code /flood/nothing/{id}} answers 404 without any lookup, the web stack's ceiling.
 */
@RestController
@RequestMapping("/flood")
class FloodController {

    private final FloodUserRepository users;

    FloodController(FloodUserRepository users) {
        this.users = users;
    }

    @GetMapping("/unguarded/{id}")
    ResponseEntity<UserView> unguarded(@PathVariable long id) {
        return found(users.findUnguardedById(id));
    }

    @GetMapping("/cached/{id}")
    ResponseEntity<UserView> cached(@PathVariable long id) {
        return found(users.findCachedById(id));
    }

    @GetMapping("/guarded/{id}")
    ResponseEntity<UserView> guarded(@PathVariable long id) {
        return found(users.findGuardedById(id));
    }

    /**
     * No lookup at all: 404 at once. What the web stack alone costs a request, the ceiling any guard in front of a
     * lookup can reach.
     */
    @GetMapping("/nothing/{id}")
    ResponseEntity<UserView> nothing(@PathVariable long id) {
        return ResponseEntity.notFound().build();
    }

    private static ResponseEntity<UserView> found(Optional<User> user) {
        return ResponseEntity.of(user.map(UserView::of));
    }
}
