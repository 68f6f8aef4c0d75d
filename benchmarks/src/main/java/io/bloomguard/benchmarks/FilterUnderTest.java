package io.bloomguard.benchmarks;

import com.google.common.hash.Funnel;
import com.google.common.hash.Funnels;
import io.bloomguard.core.BloomFilter;
import io.bloomguard.core.FilterSizing;
import io.bloomguard.local.LocalBloomFilter;
import io.bloomguard.local.LocalCountingFilter;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * One filter implementation behind one small interface, so that a benchmark method has a single call site.
 * JMH runs each parameter combination in its own JVM, where only one subclass is ever loaded, so the call is
 * monomorphic and inlined: the wrapper costs nothing measurable.
 */
abstract class FilterUnderTest {

    /** Seed of the bloom-guard filters: fixed, so that runs are repeatable. */
    static final int SEED = 0x5EED;

    abstract boolean put(Object key);

    abstract boolean mightContain(Object key);

    /** Bytes the filter's state takes: bloom-guard's bit or counter array, Guava's serialized form. */
    abstract long byteSize();

    /** An empty filter sized for {@code n} keys at false-positive rate {@code fpp}. */
    static FilterUnderTest create(FilterImpl impl, BenchmarkKeys keys, long n, double fpp) {
        if (impl == FilterImpl.BLOOM_GUARD) {
            return new BloomGuard(LocalBloomFilter.create(FilterSizing.of(n, fpp), SEED));
        }
        if (impl == FilterImpl.BLOOM_GUARD_COUNTING) {
            return new BloomGuard(LocalCountingFilter.create(FilterSizing.of(n, fpp), SEED));
        }
        if (impl == FilterImpl.SPLIT_BLOCK) {
            return new SplitBlockPrototype(n, fpp);
        }
        return keys == BenchmarkKeys.LONG
                ? new Guava<>(Long.class, Funnels.longFunnel(), n, fpp)
                : new Guava<>(String.class, Funnels.stringFunnel(StandardCharsets.UTF_8), n, fpp);
    }

    /** {@link #create} and put the first {@code n} present keys, generated one at a time. */
    static FilterUnderTest filled(FilterImpl impl, BenchmarkKeys keys, long n, double fpp) {
        FilterUnderTest filter = create(impl, keys, n, fpp);
        for (long i = 0; i < n; i++) {
            filter.put(keys.present(i));
        }
        return filter;
    }

    static final class BloomGuard extends FilterUnderTest {

        private final BloomFilter filter;

        BloomGuard(BloomFilter filter) {
            this.filter = filter;
        }

        @Override
        boolean put(Object key) {
            return filter.put(key);
        }

        @Override
        boolean mightContain(Object key) {
            return filter.mightContain(key);
        }

        @Override
        long byteSize() {
            return filter.byteSize();
        }

        @Override
        public String toString() {
            return filter.toString();
        }
    }

    /** Guava's filter with its own funnel for the key type: {@code Long} or {@code String} keys. */
    static final class Guava<T> extends FilterUnderTest {

        private final Class<T> keyType;
        private final com.google.common.hash.BloomFilter<T> filter;

        Guava(Class<T> keyType, Funnel<? super T> funnel, long n, double fpp) {
            this.keyType = keyType;
            this.filter = com.google.common.hash.BloomFilter.create(funnel, n, fpp);
        }

        @Override
        boolean put(Object key) {
            return filter.put(keyType.cast(key));
        }

        @Override
        boolean mightContain(Object key) {
            return filter.mightContain(keyType.cast(key));
        }

        @Override
        long byteSize() {
            return serializedSize(filter);
        }
    }

    /** Guava keeps its bit count private; its serialized form is the bit array plus a 6-byte header. */
    static long serializedSize(com.google.common.hash.BloomFilter<?> filter) {
        CountingOutputStream counter = new CountingOutputStream();
        try {
            filter.writeTo(counter);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return counter.count;
    }

    private static final class CountingOutputStream extends OutputStream {

        long count;

        @Override
        public void write(int b) {
            count++;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            count += len;
        }
    }
}
