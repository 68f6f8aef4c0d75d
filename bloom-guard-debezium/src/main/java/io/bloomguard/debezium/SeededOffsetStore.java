package io.bloomguard.debezium;

import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.json.JsonConverterConfig;
import org.apache.kafka.connect.runtime.WorkerConfig;
import org.apache.kafka.connect.storage.MemoryOffsetBackingStore;
import org.jspecify.annotations.Nullable;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The offsets of one run of Debezium's engine, in memory, starting from the position the runner saved: the engine
 * names this class in {@code offset.storage} and creates it itself, so the position waits in {@link #SEEDS} under the
 * engine's name until the engine starts it. The runner's saved position is the one that lasts; this store only hands
 * it to the connector and keeps what the engine commits during the run.
 *
 * <p>Internal: public because Debezium instantiates it by name; not part of bloom-guard's API.
 * @hidden
 */
public final class SeededOffsetStore extends MemoryOffsetBackingStore {

    private static final Map<String, FeedPosition> SEEDS = new ConcurrentHashMap<>();

    private @Nullable String engineName;

    /** Debezium's: an engine creates its store with no arguments. */
    public SeededOffsetStore() {
    }

    /** Hands {@code position} to the engine named {@code engineName}, which starts from it. */
    static void seed(String engineName, FeedPosition position) {
        SEEDS.put(engineName, position);
    }

    /** Forgets a seed the engine never took (it failed before starting its store). */
    static void forget(String engineName) {
        SEEDS.remove(engineName);
    }

    @Override
    public void configure(WorkerConfig config) {
        super.configure(config);
        this.engineName = config.originalsStrings().get("name");
    }

    @Override
    public synchronized void start() {
        super.start();
        String name = this.engineName;
        FeedPosition position = name == null ? null : SEEDS.remove(name);
        if (name != null && position != null) {
            // As Kafka Connect's OffsetStorageWriter writes them: key [engine name, partition], value the offset.
            JsonConverter keys = converter(true);
            JsonConverter values = converter(false);
            this.data.put(ByteBuffer.wrap(keys.fromConnectData(name, null, List.of(name, position.partition()))),
                    ByteBuffer.wrap(values.fromConnectData(name, null, position.offset())));
        }
    }

    @Override
    public Set<Map<String, Object>> connectorPartitions(String connectorName) {
        return Set.of();
    }

    private static JsonConverter converter(boolean isKey) {
        JsonConverter converter = new JsonConverter();
        converter.configure(Map.of(JsonConverterConfig.SCHEMAS_ENABLE_CONFIG, "false"), isKey);
        return converter;
    }
}
