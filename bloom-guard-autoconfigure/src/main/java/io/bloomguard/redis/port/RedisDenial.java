package io.bloomguard.redis.port;

import org.jspecify.annotations.Nullable;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One refusal by Redis of this instance's credentials or of one of its commands, read from the error Redis
 * answered with: {@code NOAUTH}, {@code WRONGPASS}, {@code NOPERM} (a command, or keys, the user may not use), or
 * {@code WRONGTYPE} (a key of the filter holds a value of another type than bloom-guard writes there, so Redis
 * refuses bloom-guard's commands on it: another application's key under the prefix, or a server that stores
 * bitmaps as a type of their own).
 *
 * @param code          {@code NOAUTH}, {@code WRONGPASS}, {@code NOPERM}, {@code WRONGTYPE}, or {@code NOCOMMAND}
 *                      (the server lacks the commands of a native filter)
 * @param command       the command denied, lower case, when Redis said which (it does not for a command inside a
 *                      script)
 * @param keys          whether it was keys, rather than a command, the user may not access
 * @param serverMessage what Redis answered; for {@code WRONGTYPE}, what holds which type, once known
 * @param key           for {@code WRONGTYPE}, the key of the filter that holds another type, once known, with
 *                      {@code *} for a bitmap's seed
 * @param keyUnknown    for {@code WRONGTYPE}, whether Redis answered it to one of the filter's commands, which does
 *                      not say which key: the access check finds it
 *
 * @since 0.1.0
 */
public record RedisDenial(String code, @Nullable String command, boolean keys, String serverMessage, @Nullable String key,
        boolean keyUnknown) {

    public static final String WRONG_TYPE = "WRONGTYPE";

    /** The server lacks commands a filter's kind needs: no module gives them ({@code BF.*} for a native filter). */
    public static final String NO_COMMAND = "NOCOMMAND";

    /** {@code NOPERM this user has no permissions to run the 'getrange' command} (and 7.2's wording). */
    private static final Pattern NAMED_COMMAND = Pattern.compile("'([A-Za-z|_-]+)' command");

    /** A script's refusal, which names no command: {@code ERR The user executing the script can't run ...}. */
    private static final String SCRIPT_COMMAND = "can't run this command";

    private static final String SCRIPT_KEYS = "can't access at least one of the keys";

    public RedisDenial(String code, @Nullable String command, boolean keys, String serverMessage) {
        this(code, command, keys, serverMessage, null, false);
    }

    /** A command denied by name: what the access check finds inside its script. */
    public static RedisDenial command(String command, String serverMessage) {
        return new RedisDenial("NOPERM", command, false, serverMessage);
    }

    /**
     * {@code key} holds a value of type {@code type} ({@code null} when Redis would not say: a user without
     * {@code TYPE}) where bloom-guard writes a {@code expected} ({@code string} or {@code hash}).
     */
    public static RedisDenial wrongType(String key, @Nullable String type, String expected) {
        String holds = (type != null && !type.isEmpty()) ? "a value of type " + type : "a value of another type";
        return new RedisDenial(WRONG_TYPE, null, false, "the key " + key + " holds " + holds + ", not a " + expected,
                key, false);
    }

    /** The server has no {@code family.*} commands (a native filter's {@code BF.*}): no module gives them. */
    public static RedisDenial missingCommands(String family) {
        return new RedisDenial(NO_COMMAND, family.toLowerCase(java.util.Locale.ROOT) + ".*", false, "ERR unknown"
                + " command: the server has no " + family + ".* commands", null, false);
    }

    /**
     * Redis, told to store a bitmap with {@code SETBIT}, stored a value of type {@code type} rather than a string:
     * it keeps bitmaps as a type of their own ({@code bitmap-default-roaring yes}).
     */
    public static RedisDenial bitmapsStoredAs(@Nullable String type) {
        return new RedisDenial(WRONG_TYPE, null, false, "Redis stores a bitmap written with SETBIT as a value of type "
                + ((type != null && !type.isEmpty()) ? type : "other than string") + ", not as a string, which"
                + " GETRANGE then refuses", null, false);
    }

    /**
     * The refusal a failure reports, looking through its causes (Lettuce reports one met while connecting as the
     * cause of "Unable to connect"), or {@code null} when it is not one: a timeout, a lost connection, another error.
     */
    public static @Nullable RedisDenial of(@Nullable Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            String message = cause.getMessage();
            if (message == null) {
                continue;
            }
            if (message.contains("WRONGPASS")) {
                return new RedisDenial("WRONGPASS", null, false, errorLine(message, "WRONGPASS"));
            }
            if (message.contains("NOAUTH")) {
                return new RedisDenial("NOAUTH", null, false, errorLine(message, "NOAUTH"));
            }
            if (message.contains("NOPERM")) {
                String line = errorLine(message, "NOPERM");
                Matcher named = NAMED_COMMAND.matcher(line);
                if (named.find()) {
                    return command(named.group(1).toLowerCase(java.util.Locale.ROOT), line);
                }
                return new RedisDenial("NOPERM", null, line.contains("key"), line);
            }
            if (message.contains(SCRIPT_COMMAND)) {
                return new RedisDenial("NOPERM", null, false, message);
            }
            if (message.contains(SCRIPT_KEYS)) {
                return new RedisDenial("NOPERM", null, true, message);
            }
            if (message.contains(WRONG_TYPE)) {
                // Which key is not said: RedisKeyTypes finds it at the next refresh.
                return new RedisDenial(WRONG_TYPE, null, false, errorLine(message, WRONG_TYPE), null, true);
            }
        }
        return null;
    }

    /** What was refused, for a message: {@code GETRANGE}, {@code keys}, or what Redis said. */
    public String what() {
        if (command != null) {
            return command.toUpperCase(java.util.Locale.ROOT);
        }
        if (keys) {
            return "keys";
        }
        return "a command inside one of bloom-guard's scripts";
    }

    private static String errorLine(String message, String code) {
        return message.substring(message.indexOf(code)).strip();
    }
}
