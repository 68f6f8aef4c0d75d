/**
 * The native cuckoo filter kind ({@code type: cuckoo} with {@code redis.kind: native}): each generation is one cuckoo
 * filter of the server's own ({@code CF.*}), built inside Redis, from which a key whose rows are proven gone is
 * deleted. Its scripts read a key that is gone as "unknown", never as "absent".
 */
@NullMarked
package io.bloomguard.redis.kind.cf;

import org.jspecify.annotations.NullMarked;
