package io.bloomguard.testsupport.redis;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Hands a test class a running Redis: a parameter of type {@link RedisServerProcess} gets one {@code redis-server},
 * a parameter of type {@link RedisClusterProcess} one three-node cluster. Each is started when first asked for and
 * is the same for every constructor, {@code @BeforeAll}, {@code @BeforeEach} and test method of the class; it is
 * stopped after the class, once its {@code @AfterAll} methods have run (so they can still close clients first).
 * A test may kill or restart its server; the next test gets it in whatever state that left. A parameter of type
 * {@link TwoInstances} gets two application instances on that server, one behind a freezable proxy, for the one test
 * method, closed after it. A {@link RedisServerProcess} parameter marked {@link WithRedisBloom} gets a second server,
 * with the RedisBloom module, shared the same way (and the tests are skipped without a module).
 *
 * <p>Usage: <pre>{@code
 * @ExtendWith(RedisServerExtension.class)
 * class RedisLayoutIT {
 *     @BeforeAll
 *     static void connect(RedisServerProcess redis) { ... redis.port() ... }
 * }}</pre>
 */
public final class RedisServerExtension implements ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace
        .create(RedisServerExtension.class);

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == RedisServerProcess.class || type == RedisClusterProcess.class || type == TwoInstances.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        ExtensionContext.Store store = classContext(context).getStore(NAMESPACE);
        if (parameter.getParameter().getType() == TwoInstances.class) {
            RedisServerProcess server = store.computeIfAbsent(RedisServerProcess.class,
                    (type) -> RedisServerProcess.start(), RedisServerProcess.class);
            return context.getStore(NAMESPACE).computeIfAbsent(TwoInstances.class, (type) -> new TwoInstances(server),
                    TwoInstances.class);
        }
        if (parameter.getParameter().getType() == RedisClusterProcess.class && parameter.isAnnotated(WithRedisBloom.class)) {
            return store.computeIfAbsent(WithRedisBloom.class.getName() + ":cluster",
                    (type) -> RedisClusterProcess.startWithRedisBloom(), RedisClusterProcess.class);
        }
        if (parameter.getParameter().getType() == RedisClusterProcess.class) {
            return store.computeIfAbsent(RedisClusterProcess.class, (type) -> RedisClusterProcess.start(),
                    RedisClusterProcess.class);
        }
        if (parameter.isAnnotated(WithRedisBloom.class)) {
            return store.computeIfAbsent(WithRedisBloom.class, (type) -> RedisServerProcess.startWithRedisBloom(),
                    RedisServerProcess.class);
        }
        return store.computeIfAbsent(RedisServerProcess.class, (type) -> RedisServerProcess.start(),
                RedisServerProcess.class);
    }

    /**
     * The context of the test class, whose store is closed after the class: values in it that are
     * {@link AutoCloseable} are closed then.
     */
    private static ExtensionContext classContext(ExtensionContext context) {
        ExtensionContext current = context;
        while (current.getTestMethod().isPresent() && current.getParent().isPresent()) {
            current = current.getParent().get();
        }
        return current;
    }

}
