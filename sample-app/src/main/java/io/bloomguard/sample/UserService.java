package io.bloomguard.sample;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Creates users. {@link UserRepository#save} adds each new id to the filter before this transaction commits. */
@Service
public class UserService {

    private final UserRepository users;

    public UserService(UserRepository users) {
        this.users = users;
    }

    @Transactional
    public User create(String name, String email) {
        return users.save(new User(name, email));
    }
}
