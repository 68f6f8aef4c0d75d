package io.bloomguard.redis;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Redis refused this instance: no password where one is required ({@code NOAUTH}), a wrong username or password
 * ({@code WRONGPASS}), or a user whose ACL denies a command or the keys bloom-guard needs ({@code NOPERM}). Not an
 * outage that passes by itself but a configuration mistake: the filter is not ready until it is fixed, its adds
 * fail rather than wait for a Redis that would never take them, and at startup the application does not start.
 * The message says what was refused and what to change; {@link #acl()} is the ACL bloom-guard needs.
 */
public class RedisAccessDeniedException extends RedisUnavailableException {

    private final String filter;
    private final String code;
    private final List<String> denied;
    private final RedisAcl acl;
    private final List<RedisDenial> denials;

    RedisAccessDeniedException(String filter, List<RedisDenial> denials, RedisAcl acl) {
        super(message(filter, denials, acl));
        this.denials = List.copyOf(denials);
        this.filter = filter;
        this.code = denials.get(0).code();
        Set<String> what = new LinkedHashSet<>();
        denials.forEach(denial -> what.add(denial.what()));
        this.denied = List.copyOf(what);
        this.acl = acl;
    }

    /** The same refusal, thrown anew for another call (its stack, not the one that found it), caused by this. */
    RedisAccessDeniedException again() {
        RedisAccessDeniedException copy = new RedisAccessDeniedException(filter, denials, acl);
        copy.initCause(this);
        return copy;
    }

    /** The filter that met the refusal. */
    public String filter() {
        return filter;
    }

    /** What Redis answered with: {@code NOAUTH}, {@code WRONGPASS} or {@code NOPERM}. */
    public String code() {
        return code;
    }

    /** What was refused: command names in upper case, {@code keys}, or nothing for an authentication failure. */
    public List<String> denied() {
        return code.equals("NOPERM") ? denied : List.of();
    }

    /** The ACL bloom-guard's Redis user needs. */
    public RedisAcl acl() {
        return acl;
    }

    /** What to change, in one or two sentences. */
    public String action() {
        return switch (code) {
            case "NOAUTH" -> "Redis requires a password and the application sent none: set spring.data.redis.password"
                    + " (and spring.data.redis.username for an ACL user other than 'default'). " + aclSentence();
            case "WRONGPASS" -> "Correct spring.data.redis.username and spring.data.redis.password, or enable the"
                    + " user in Redis (ACL SETUSER <user> on). " + aclSentence();
            default -> "Grant the Redis user what bloom-guard needs: ACL SETUSER <user> " + acl.rules()
                    + " (or add just what is missing: " + denied.stream()
                            .map(what -> what.equals("keys") ? acl.keyPattern() : "+" + what.toLowerCase(java.util.Locale.ROOT))
                            .filter(rule -> !rule.contains(" ")).collect(Collectors.joining(" ")) + ")";
        };
    }

    private String aclSentence() {
        return "The user also needs the ACL " + acl.rules();
    }

    private static String message(String filter, List<RedisDenial> denials, RedisAcl acl) {
        RedisDenial first = denials.get(0);
        String refused = switch (first.code()) {
            case "NOAUTH" -> "Redis requires authentication and none was given (NOAUTH)";
            case "WRONGPASS" -> "Redis refused the username or password (WRONGPASS)";
            default -> "the Redis user may not use " + denials.stream().map(RedisDenial::what).distinct()
                    .map(what -> what.equals("keys") ? "the keys " + acl.keyPattern() : what)
                    .collect(Collectors.joining(", ")) + " (Redis answered: " + first.serverMessage() + ")";
        };
        return "Filter '" + filter + "': " + refused + ". bloom-guard's Redis user needs the commands "
                + String.join(" ", RedisAcl.COMMANDS).toUpperCase(java.util.Locale.ROOT) + " on the keys "
                + acl.keyPattern() + " (ACL rules: " + acl.rules() + ")";
    }
}
