package io.bloomguard.redis;

import io.bloomguard.redis.kind.RedisKind;

/**
 * The backend contract on the server's own Bloom filter ({@code redis.kind: native}, {@code BF.*}): it never answers
 * "absent" for a key put and stays within its error rate at its expected size. Adapted only as every native kind is
 * ({@link RedisNativeContractTest}).
 */
class RedisNativeBloomFilterContractIT extends RedisNativeContractTest {

    @Override
    RedisKind kind() {
        return RedisKinds.NATIVE_BLOOM;
    }

    @Override
    String namePrefix() {
        return "native";
    }
}
