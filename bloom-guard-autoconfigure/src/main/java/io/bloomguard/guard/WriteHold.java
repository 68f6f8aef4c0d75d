package io.bloomguard.guard;

import io.bloomguard.registry.NamedBloomFilter;

/**
 * One write's hold on a filter's rejections ({@link NamedBloomFilter#beginWrite()}): begun at most once, when
 * the written record may become visible before its key, and ended once the key is in. Used by the writing
 * thread only.
 */
final class WriteHold {

    private final NamedBloomFilter filter;
    private boolean held;
    private boolean ended;

    WriteHold(NamedBloomFilter filter) {
        this.filter = filter;
    }

    void begin() {
        if (!held && !ended) {
            held = true;
            filter.beginWrite();
        }
    }

    void end() {
        ended = true;
        if (held) {
            held = false;
            filter.endWrite();
        }
    }
}
