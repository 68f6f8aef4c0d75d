package io.bloomguard.redis.port;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Redis refused this instance: no password where one is required ({@code NOAUTH}), a wrong username or password
 * ({@code WRONGPASS}), a user whose ACL denies a command or the keys bloom-guard needs ({@code NOPERM}), or a key of
 * the filter that holds a value of another type than bloom-guard writes there ({@code WRONGTYPE}: another
 * application's key under the prefix, or a server that stores bitmaps as a type of their own,
 * {@code bitmap-default-roaring yes}). Not an
 * outage that passes by itself but a configuration mistake: the filter is not ready until it is fixed, its adds
 * fail rather than wait for a Redis that would never take them, and at startup the application does not start.
 * The message says what was refused and what to change; {@link #acl()} is the ACL bloom-guard needs.
 *
 * @since 0.1.0
 */
public class RedisAccessDeniedException extends RedisUnavailableException {

    private final String filter;
    private final String code;
    private final List<String> denied;
    private final RedisAcl acl;
    private final List<RedisDenial> denials;

    public RedisAccessDeniedException(String filter, List<RedisDenial> denials, RedisAcl acl) {
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
    public RedisAccessDeniedException again() {
        RedisAccessDeniedException copy = new RedisAccessDeniedException(filter, denials, acl);
        copy.initCause(this);
        return copy;
    }

    /** The filter that met the refusal. */
    public String filter() {
        return filter;
    }

    /** What Redis answered with: {@code NOAUTH}, {@code WRONGPASS}, {@code NOPERM} or {@code WRONGTYPE}. */
    public String code() {
        return code;
    }

    /** What was refused: command names in upper case, {@code keys}, or nothing for an authentication failure. */
    public List<String> denied() {
        return code.equals("NOPERM") ? denied : List.of();
    }

    /**
     * Whether this refusal says what to fix: every one does but a {@code WRONGTYPE} answered to a command, until
     * {@link io.bloomguard.redis.engine.RedisKeyTypes} has found which key it was.
     */
    public boolean pinpointed() {
        return denials.stream().noneMatch(RedisDenial::keyUnknown);
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
            case RedisDenial.WRONG_TYPE -> wrongTypeAction(denials.get(0));
            case RedisDenial.NO_COMMAND -> "The server has no " + denied.get(0) + " commands, which a native filter"
                    + " (redis.kind: native) needs: use Redis 8, Redis Stack, Valkey with its bloom module or a server"
                    + " that loads the RedisBloom module (--loadmodule), or set bloom-guard.filters." + filter
                    + ".redis.kind: bitmap";
            default -> "Grant the Redis user what bloom-guard needs: ACL SETUSER <user> " + acl.rules()
                    + " (or add just what is missing: " + denied.stream()
                            .map(what -> what.equals("keys") ? acl.keyPattern() : "+" + what.toLowerCase(java.util.Locale.ROOT))
                            .filter(rule -> !rule.contains(" ")).collect(Collectors.joining(" ")) + ")";
        };
    }

    /** The remedies of a key of another type, whichever way it got there. */
    private String wrongTypeAction(RedisDenial wrongType) {
        String roaring = "set bitmap-default-roaring no (CONFIG SET bitmap-default-roaring no, and in redis.conf)";
        if (wrongType.key() == null && !wrongType.keyUnknown()) {
            return "The server stores bitmaps as a type of their own: " + roaring + ", then delete the filter's"
                    + " bitmaps that have that type (" + acl.keyPrefix() + "*:bits:*, :next:*): the filter is rebuilt"
                    + " from its key source";
        }
        String shown = wrongType.key();
        String key = (shown == null) ? "the key (the filter's health names it at its next refresh)"
                : shown.contains("*") ? "the key (its seed is left out here: redis-cli --scan --pattern '" + shown
                        + "' finds it)"
                : "the key (DEL " + shown + ")";
        return "bloom-guard keeps only strings and hashes under " + acl.keyPrefix() + ". If the server stores bitmaps"
                + " as a type of their own, " + roaring + "; if another application writes under that prefix, give"
                + " bloom-guard a prefix of its own (bloom-guard.redis.key-prefix); then delete " + key + ": the"
                + " filter is rebuilt from its key source";
    }

    private String aclSentence() {
        return "The user also needs the ACL " + acl.rules();
    }

    private static String message(String filter, List<RedisDenial> denials, RedisAcl acl) {
        RedisDenial first = denials.get(0);
        if (first.code().equals(RedisDenial.WRONG_TYPE)) {
            // Not a matter of the user's rights: the ACL would only distract.
            return "Filter '" + filter + "': " + (first.keyUnknown() ? "a key of the filter holds a value of another"
                    + " type than bloom-guard writes there (Redis answered: " + first.serverMessage() + ")"
                    : first.serverMessage()) + ", so Redis refuses bloom-guard's commands on it (WRONGTYPE)";
        }
        if (first.code().equals(RedisDenial.NO_COMMAND)) {
            return "Filter '" + filter + "': " + first.serverMessage() + ", which a native filter (redis.kind: native)"
                    + " needs";
        }
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
