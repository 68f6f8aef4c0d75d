package io.bloomguard.testapp;

import org.springframework.cache.Cache;
import org.springframework.cache.concurrent.ConcurrentMapCache;
import org.springframework.cache.concurrent.ConcurrentMapCacheManager;

import java.util.concurrent.atomic.AtomicLong;

/** Spring's in-memory cache manager, counting lookups so a test can tell whether the cache was consulted. */
public class CountingCacheManager extends ConcurrentMapCacheManager {

    private final AtomicLong lookups = new AtomicLong();

    @Override
    protected Cache createConcurrentMapCache(String name) {
        return new ConcurrentMapCache(name) {
            @Override
            protected Object lookup(Object key) {
                lookups.incrementAndGet();
                return super.lookup(key);
            }
        };
    }

    public long lookups() {
        return lookups.get();
    }
}
