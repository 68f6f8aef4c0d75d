package io.bloomguard.sample;

import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

import java.net.URI;
import java.util.Objects;

/** {@code GET /users/{id}} (404 when absent) and {@code POST /users}. */
@RestController
class UserController {

    private final UserRepository users;
    private final UserService userService;

    UserController(UserRepository users, UserService userService) {
        this.users = users;
        this.userService = userService;
    }

    @GetMapping("/users/{id}")
    ResponseEntity<UserView> find(@PathVariable long id) {
        return ResponseEntity.of(users.findById(id).map(UserView::of));
    }

    @PostMapping("/users")
    ResponseEntity<UserView> create(@RequestBody NewUser request) {
        String name = request.name();
        String email = request.email();
        if (name == null || name.isBlank() || email == null || email.isBlank()) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "name and email are required");
        }
        UserView user = UserView.of(userService.create(name, email));
        return ResponseEntity.created(URI.create("/users/" + user.id())).body(user);
    }

    /** Body of {@code POST /users}. */
    record NewUser(@Nullable String name, @Nullable String email) {
    }

    /** A user as the API shows it. */
    record UserView(long id, String name, String email) {

        static UserView of(User user) {
            return new UserView(Objects.requireNonNull(user.getId(), "unsaved user"), user.getName(), user.getEmail());
        }
    }
}
