package io.bloomguard.testsupport.redis;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The file a {@code redis-server} writes its output to, across restarts: read from where a launch began, so that
 * a failure shows what that launch printed.
 */
final class ServerLog {

    private static final int TAIL_LINES = 20;

    private final Path file;

    ServerLog(Path file) {
        this.file = file;
    }

    Path file() {
        return this.file;
    }

    /** Where the next launch's output will begin. */
    long size() {
        try {
            return Files.exists(this.file) ? Files.size(this.file) : 0;
        }
        catch (IOException ex) {
            return 0;
        }
    }

    /** What was written from {@code offset} on (at most 1 MiB). */
    String since(long offset) {
        try (RandomAccessFile in = new RandomAccessFile(this.file.toFile(), "r")) {
            in.seek(Math.min(offset, in.length()));
            byte[] bytes = new byte[(int) Math.min(in.length() - in.getFilePointer(), 1 << 20)];
            in.readFully(bytes);
            return new String(bytes, StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            return "(log unreadable: " + ex + ")";
        }
    }

    /** The last lines of {@code output}, enough to see why a server stopped. */
    static String tail(String output) {
        String[] lines = output.split("\n");
        return String.join("\n", Arrays.copyOfRange(lines, Math.max(0, lines.length - TAIL_LINES), lines.length));
    }

}
