package io.bloomguard.redis;

import io.bloomguard.core.AddFailurePolicy;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.core.NearCopyMode;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** What a Redis filter is created as when nothing else is said, and what cannot be created. */
class RedisFilterSpecTest {

    private static final FilterSizing SIZING = FilterSizing.of(10_000, 0.01);

    @Test
    void byDefaultOneShardBufferedAddsNoNearCopyAndASeedOfItsOwn() {
        RedisFilterSpec spec = RedisFilterSpec.builder(RedisKinds.COUNTING, SIZING).build();
        assertThat(spec.kind()).isSameAs(RedisKinds.COUNTING);
        assertThat(spec.shards()).isEqualTo(1);
        assertThat(spec.onAddFailure()).isEqualTo(AddFailurePolicy.BUFFER);
        assertThat(spec.nearCopy()).isEqualTo(NearCopyMode.OFF);
        // Random seeds: 20 specs sharing one would be a broken source (chance 20·19/2 / 2³² of any pair equal).
        assertThat(java.util.stream.IntStream.range(0, 20)
                .map(i -> RedisFilterSpec.builder(RedisKinds.BLOOM, SIZING).build().seed()).distinct().count())
                .isEqualTo(20);
    }

    @Test
    void whatIsSaidIsKept() {
        RedisFilterSpec spec = RedisFilterSpec.builder(RedisKinds.BLOOM, SIZING).seed(7).shards(3)
                .onAddFailure(AddFailurePolicy.FAIL).nearCopy(NearCopyMode.ORDERED).build();
        assertThat(spec).isEqualTo(new RedisFilterSpec(RedisKinds.BLOOM, SIZING, 7, 3, AddFailurePolicy.FAIL,
                NearCopyMode.ORDERED));
    }

    @Test
    void aShapeTheKindCannotStoreIsRefusedWithTheReason() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> RedisFilterSpec.builder(RedisKinds.LAYERED, SIZING).shards(2).build())
                .withMessageContaining("one shard");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> RedisFilterSpec.builder(RedisKinds.BLOOM, SIZING).shards(0).build())
                .withMessageContaining("shards must be at least 1");
    }
}
