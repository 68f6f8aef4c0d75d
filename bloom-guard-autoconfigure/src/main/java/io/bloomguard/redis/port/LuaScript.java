package io.bloomguard.redis.port;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A Lua script run with {@code EVALSHA} (falling back to {@code EVAL} when the server does not have it yet).
 *
 * @param name   for logs and errors
 * @param source the script
 * @param result the kind of reply it gives
 * @param sha1   its SHA-1, as {@code SCRIPT LOAD} would report it
 *
 * @since 0.1.0
 */
public record LuaScript(String name, String source, Result result, String sha1) {

    /** The reply type of a script. */
    public enum Result {
        /** An integer reply, as a {@code Long}. */
        INTEGER,
        /** A bulk string reply, as {@code byte[]}. */
        BULK,
        /** An array of bulk strings, as a {@code List} of {@code byte[]}. */
        LIST
    }

    public static LuaScript of(String name, Result result, String source) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8));
            return new LuaScript(name, source, result, HexFormat.of().formatHex(digest));
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("SHA-1 is required of every JVM", ex);
        }
    }
}
