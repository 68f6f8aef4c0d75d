package io.bloomguard.redis;

import io.bloomguard.core.FilterSizing;
import io.bloomguard.redis.kind.RedisFilterIdentity;
import io.bloomguard.redis.kind.RedisFilterKeys;
import io.bloomguard.redis.kind.counting.CountingKind;
import io.bloomguard.redis.kind.layered.LayeredKind;
import io.bloomguard.redis.kind.plain.PlainKind;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The names of a filter's Redis keys and the identity strings in them, as literals. They are a contract between
 * versions: a new version must find the filter an older one stored (under another name it would see no filter and
 * rebuild it), and during a rolling deploy instances of two versions read and write the same keys. A failure here
 * means stored data moved: keep the names, or prove that the new version reads what the old one wrote.
 */
class RedisFilterKeysGoldenTest {

    /** 19,723 blocks of 7 hashes; a seed whose sign bit is set, as half of the random seeds are. */
    private static final FilterSizing SIZING = FilterSizing.of(1_000_000, 0.01);
    private static final int SEED = 0xcafe1234;

    private final RedisFilterKeys keys = new RedisFilterKeys("bloom-guard:", "users");

    @Test
    void aPlainFilterWrittenByThisVersionIsFoundByTheNext() throws Exception {
        RedisFilterIdentity plain = PlainKind.INSTANCE.identity(SIZING, SEED, 3);
        assertThat(plain.fingerprint()).isEqualTo("v1.b19723.k7.scafe1234.n3");
        assertThat(plain.fingerprintWithoutSeed()).isEqualTo("v1.b19723.k7.s*.n3");
        assertThat(plain.type()).isEqualTo("bloom");
        assertThat(keys.bits(0, plain)).isEqualTo("bloom-guard:{users}:bits:v1.b19723.k7.scafe1234.n3");
        assertThat(keys.bits(2, plain)).isEqualTo("bloom-guard:{users:2}:bits:v1.b19723.k7.scafe1234.n3");
        assertThat(bitsWithoutSeed(0, plain)).isEqualTo("bloom-guard:{users}:bits:v1.b19723.k7.s*.n3");
        assertThat(bitsWithoutSeed(2, plain)).isEqualTo("bloom-guard:{users:2}:bits:v1.b19723.k7.s*.n3");
        assertThat(keys.next(0, plain)).isEqualTo("bloom-guard:{users}:next:v1.b19723.k7.scafe1234.n3");
        assertThat(keys.next(2, plain)).isEqualTo("bloom-guard:{users:2}:next:v1.b19723.k7.scafe1234.n3");
        assertThat(keys.upload(0, plain, "o1")).isEqualTo("bloom-guard:{users}:upload:v1.b19723.k7.scafe1234.n3:o1");
        assertThat(keys.upload(2, plain, "o1")).isEqualTo("bloom-guard:{users:2}:upload:v1.b19723.k7.scafe1234.n3:o1");
    }

    @Test
    void aCountingFilterWrittenByThisVersionIsFoundByTheNext() throws Exception {
        RedisFilterIdentity counting = CountingKind.INSTANCE.identity(SIZING, SEED, 3);
        assertThat(counting.fingerprint()).isEqualTo("v1.b19723.k7.scafe1234.n3.c4");
        assertThat(counting.fingerprintWithoutSeed()).isEqualTo("v1.b19723.k7.s*.n3.c4");
        assertThat(counting.type()).isEqualTo("counting");
        assertThat(keys.bits(0, counting)).isEqualTo("bloom-guard:{users}:bits:v1.b19723.k7.scafe1234.n3.c4");
        assertThat(keys.bits(2, counting)).isEqualTo("bloom-guard:{users:2}:bits:v1.b19723.k7.scafe1234.n3.c4");
        assertThat(bitsWithoutSeed(2, counting)).isEqualTo("bloom-guard:{users:2}:bits:v1.b19723.k7.s*.n3.c4");
        assertThat(keys.next(2, counting)).isEqualTo("bloom-guard:{users:2}:next:v1.b19723.k7.scafe1234.n3.c4");
        assertThat(keys.upload(2, counting, "o1"))
            .isEqualTo("bloom-guard:{users:2}:upload:v1.b19723.k7.scafe1234.n3.c4:o1");
    }

    @Test
    void aFilterThatGrowsByLayersWrittenByThisVersionIsFoundByTheNext() throws Exception {
        RedisFilterIdentity layered = LayeredKind.INSTANCE.identity(SIZING, SEED, 1);
        assertThat(layered.fingerprint()).isEqualTo("v1.b19723.k7.scafe1234.n1.x2");
        assertThat(layered.fingerprintWithoutSeed()).isEqualTo("v1.b19723.k7.s*.n1.x2");
        assertThat(layered.type()).isEqualTo("bloom");
        assertThat(keys.bits(0, layered)).isEqualTo("bloom-guard:{users}:bits:v1.b19723.k7.scafe1234.n1.x2");
        assertThat(bitsWithoutSeed(0, layered)).isEqualTo("bloom-guard:{users}:bits:v1.b19723.k7.s*.n1.x2");
        assertThat(keys.layer(layered, 1)).isEqualTo("bloom-guard:{users}:bits:v1.b19723.k7.scafe1234.n1.x2:layer1");
        assertThat(keys.layer(layered, 2)).isEqualTo("bloom-guard:{users}:bits:v1.b19723.k7.scafe1234.n1.x2:layer2");
        assertThat(keys.next(0, layered)).isEqualTo("bloom-guard:{users}:next:v1.b19723.k7.scafe1234.n1.x2");
    }

    /** Metadata, lock and channel are shared by every kind: instances of two versions must meet on them. */
    @Test
    void instancesOfTwoVersionsShareOneLockMetadataAndAddsChannel() {
        assertThat(keys.meta(0)).isEqualTo("bloom-guard:{users}:meta");
        assertThat(keys.meta(2)).isEqualTo("bloom-guard:{users:2}:meta");
        assertThat(keys.lock()).isEqualTo("bloom-guard:{users}:lock");
        assertThat(keys.fence()).isEqualTo("bloom-guard:{users}:fence");
        assertThat(keys.adds(0)).isEqualTo("bloom-guard:{users}:adds");
        assertThat(keys.adds(2)).isEqualTo("bloom-guard:{users:2}:adds");
        assertThat(keys.removal(0, "r1")).isEqualTo("bloom-guard:{users}:removed:r1");
        assertThat(keys.removal(2, "r1")).isEqualTo("bloom-guard:{users:2}:removed:r1");
        assertThat(keys.accessCheck(1)).isEqualTo("bloom-guard:{users}:access-check:1");
        assertThat(keys.accessCheck(3)).isEqualTo("bloom-guard:{users}:access-check:3");
    }

    /** The SCAN pattern that finds the live bitmap whatever its seed (package-private where it lives). */
    private String bitsWithoutSeed(int shard, RedisFilterIdentity identity) throws Exception {
        Method method = RedisFilterKeys.class.getDeclaredMethod("bitsWithoutSeed", int.class,
                RedisFilterIdentity.class);
        method.setAccessible(true);
        return (String) method.invoke(keys, shard, identity);
    }
}
