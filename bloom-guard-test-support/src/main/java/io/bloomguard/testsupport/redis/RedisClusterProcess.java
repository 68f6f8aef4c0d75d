package io.bloomguard.testsupport.redis;

import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A real three-master Redis Cluster on loopback ports, built the way {@code redis-cli --cluster create} does it, so
 * tests see genuine {@code MOVED} redirects and slot ownership; with {@link #startWithReplicas()}, each master has a
 * replica, which a test can cut off and promote after its master died ({@link #cutOffReplicaOf},
 * {@link #killMasterAndTakeOver()}). Each node is a {@link RedisServerProcess} and can be killed and restarted on its
 * own.
 *
 * <p>Usage: {@code try (RedisClusterProcess cluster = RedisClusterProcess.start()) {
 * properties.put("spring.data.redis.cluster.nodes", cluster.nodeAddresses()); ... }}.
 */
public final class RedisClusterProcess implements AutoCloseable {

    private static final int SLOTS = 16_384;

    private static final int NODE_COUNT = 3;

    /** First slot of each node, as {@code redis-cli --cluster create} splits them; the last node ends at 16383. */
    private static final int[] FIRST_SLOTS = { 0, 5461, 10923 };

    private static final Duration CONVERGENCE_TIMEOUT = Duration.ofSeconds(20);

    /** Masters in slot order; a promoted replica takes its master's place. */
    private final List<RedisServerProcess> nodes;

    /** {@code replicas.get(i)} replicates {@code nodes.get(i)}; empty without replicas. */
    private final List<RedisServerProcess> replicas;

    /** Every node started, for {@link #close()}. */
    private final List<RedisServerProcess> started;

    private @Nullable ReplicaCutOff cutOff;

    private int cutOffShard = -1;

    private RedisClusterProcess(List<RedisServerProcess> nodes, List<RedisServerProcess> replicas) {
        this.nodes = new ArrayList<>(nodes);
        this.replicas = new ArrayList<>(replicas);
        this.started = new ArrayList<>(nodes);
        this.started.addAll(replicas);
    }

    /**
     * Starts three nodes, gives each a third of the slots, joins them and waits until every node reports a
     * healthy cluster that covers all slots.
     * @return the running cluster
     */
    public static RedisClusterProcess start() {
        return start(false);
    }

    /**
     * Starts three masters as {@link #start()} does and one replica for each, and waits until every replica is in
     * sync with its master.
     * @return the running cluster
     */
    public static RedisClusterProcess startWithReplicas() {
        return start(true);
    }

    /**
     * Starts three masters as {@link #start()} does, each with the {@link RedisBloomModule} loaded.
     * @return the running cluster
     * @throws IllegalStateException if no module is configured (see {@link RedisServerProcess#startWithRedisBloom})
     */
    public static RedisClusterProcess startWithRedisBloom() {
        return start(false, RedisBloomModule.loadModuleArguments());
    }

    private static RedisClusterProcess start(boolean withReplicas) {
        return start(withReplicas, List.of());
    }

    private static RedisClusterProcess start(boolean withReplicas, List<String> moduleArgs) {
        List<RedisServerProcess> nodes = new ArrayList<>(NODE_COUNT);
        List<RedisServerProcess> replicas = new ArrayList<>(NODE_COUNT);
        try {
            for (int i = 0; i < NODE_COUNT; i++) {
                nodes.add(startNode(moduleArgs));
                if (withReplicas) {
                    replicas.add(startNode(moduleArgs));
                }
            }
            RedisClusterProcess cluster = new RedisClusterProcess(nodes, replicas);
            cluster.assignSlotsAndMeet();
            cluster.awaitConverged();
            if (withReplicas) {
                cluster.attachReplicas();
            }
            return cluster;
        }
        catch (RuntimeException ex) {
            nodes.forEach(RedisServerProcess::close);
            replicas.forEach(RedisServerProcess::close);
            throw ex;
        }
    }

    private static RedisServerProcess startNode(List<String> moduleArgs) {
        List<String> args = new ArrayList<>(moduleArgs);
        args.addAll(List.of("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                "--cluster-node-timeout", "5000", RedisSentinelProcess.NO_SYNC_DELAY[0],
                RedisSentinelProcess.NO_SYNC_DELAY[1]));
        return RedisServerProcess.start(args.toArray(String[]::new));
    }

    /** Masters in slot order: node 0 owns slots 0-5460, node 1 5461-10922, node 2 10923-16383. */
    public synchronized List<RedisServerProcess> nodes() {
        return List.copyOf(this.nodes);
    }

    /** Replicas, {@code replicas().get(i)} of {@code nodes().get(i)}; empty unless {@link #startWithReplicas()}. */
    public synchronized List<RedisServerProcess> replicas() {
        return List.copyOf(this.replicas);
    }

    /**
     * Stops the replica of the master that owns {@code bitmapKeys}'s slot (SIGSTOP) and has the master drop its
     * link, so the replica misses every write from now on; {@link #killMasterAndTakeOver()} then proves it did.
     * @param bitmapKeys {@code SCAN} pattern of the bitmaps whose bits prove the loss, with a hash tag so that they
     * are in one slot, such as {@code app:{users}:bits:*}
     */
    public synchronized void cutOffReplicaOf(String bitmapKeys) {
        if (this.replicas.isEmpty() || this.cutOff != null) {
            throw new IllegalStateException(this.replicas.isEmpty() ? "No replicas: use startWithReplicas()"
                    : "A replica is cut off already");
        }
        RedisServerProcess anyLive = this.started.stream().filter(RedisServerProcess::isRunning).findFirst()
            .orElseThrow(() -> new IllegalStateException("No node of " + this + " is running"));
        int slot = Integer.parseInt(String.valueOf(anyLive.command("CLUSTER", "KEYSLOT", bitmapKeys)));
        int shard = NODE_COUNT - 1;
        while (FIRST_SLOTS[shard] > slot) {
            shard--;
        }
        this.cutOff = ReplicaCutOff.cut(this.nodes.get(shard), this.replicas.get(shard), bitmapKeys);
        this.cutOffShard = shard;
    }

    /**
     * Kills the master whose replica is cut off (SIGKILL), resumes the replica and promotes it with
     * {@code CLUSTER FAILOVER TAKEOVER} (no agreement of the other masters, no catching up first); waits until every
     * live node sees it own the slots. The replica then takes the master's place in {@link #nodes()}.
     * @return the proof the promoted replica lacks writes the old master had
     * @throws AssertionError, as a harness error, when the master wrote no bit since the cut (nothing lost)
     */
    public synchronized LostWrites killMasterAndTakeOver() {
        ReplicaCutOff current = Objects.requireNonNull(this.cutOff, "cutOffReplicaOf(...) first");
        int shard = this.cutOffShard;
        this.cutOff = null;
        LostWrites lost = current.killPrimary();
        RedisServerProcess promoted = this.replicas.get(shard);
        String promotedId = String.valueOf(promoted.command("CLUSTER", "MYID"));
        promoted.command("CLUSTER", "FAILOVER", "TAKEOVER");
        List<RedisServerProcess> live = this.started.stream().filter(RedisServerProcess::isRunning).toList();
        await("replica on port " + promoted.port() + " owning slot " + FIRST_SLOTS[shard] + " on every node")
            .atMost(CONVERGENCE_TIMEOUT)
            .pollInterval(Duration.ofMillis(20))
            .untilAsserted(() -> assertThat(live).allSatisfy((node) -> assertThat(
                    ownerOf(FIRST_SLOTS[shard], String.valueOf(node.command("CLUSTER", "NODES"))))
                .as("owner of slot %d seen by port %d", FIRST_SLOTS[shard], node.port())
                .isEqualTo(promotedId)));
        this.replicas.set(shard, this.nodes.get(shard));
        this.nodes.set(shard, promoted);
        return lost;
    }

    /** One {@code redis://} URI per node, as cluster clients take them. */
    public synchronized List<String> redisUris() {
        return this.nodes.stream().map(RedisServerProcess::redisUri).toList();
    }

    /** Comma-separated {@code host:port} of every node, the format of {@code spring.data.redis.cluster.nodes}. */
    public synchronized String nodeAddresses() {
        return this.nodes.stream().map((node) -> node.host() + ":" + node.port()).collect(Collectors.joining(","));
    }

    /** Deletes every key on every node. */
    public synchronized void flushAll() {
        this.nodes.forEach((node) -> node.command("FLUSHALL"));
    }

    /** Stops every node and deletes their directories. Safe to call more than once. */
    @Override
    public synchronized void close() {
        @Nullable RuntimeException failure = null;
        for (RedisServerProcess node : this.started) {
            try {
                node.close();
            }
            catch (RuntimeException ex) {
                if (failure == null) {
                    failure = ex;
                }
                else {
                    failure.addSuppressed(ex);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        return "Redis Cluster " + nodeAddresses();
    }

    private void assignSlotsAndMeet() {
        for (int i = 0; i < NODE_COUNT; i++) {
            RedisServerProcess node = this.nodes.get(i);
            int first = FIRST_SLOTS[i];
            int last = (i + 1 < NODE_COUNT) ? FIRST_SLOTS[i + 1] - 1 : SLOTS - 1;
            // ADDSLOTSRANGE would be shorter but only exists from Redis 7.0; the fallback binary is 6.2.
            List<String> args = new ArrayList<>(last - first + 3);
            args.add("CLUSTER");
            args.add("ADDSLOTS");
            for (int slot = first; slot <= last; slot++) {
                args.add(String.valueOf(slot));
            }
            node.command(args.toArray(String[]::new));
            // Distinct epochs up front, as redis-cli does, so the nodes need not resolve a collision first.
            node.command("CLUSTER", "SET-CONFIG-EPOCH", String.valueOf(i + 1));
        }
        RedisServerProcess first = this.nodes.get(0);
        for (RedisServerProcess other : this.started.subList(1, this.started.size())) {
            first.command("CLUSTER", "MEET", other.host(), String.valueOf(other.port()));
        }
    }

    private void attachReplicas() {
        for (int i = 0; i < NODE_COUNT; i++) {
            String masterId = String.valueOf(this.nodes.get(i).command("CLUSTER", "MYID"));
            this.replicas.get(i).command("CLUSTER", "REPLICATE", masterId);
        }
        await("replicas of " + nodeAddresses() + " in sync").atMost(CONVERGENCE_TIMEOUT)
            .pollDelay(Duration.ZERO)
            .pollInterval(Duration.ofMillis(50))
            .untilAsserted(() -> assertThat(this.replicas).allSatisfy((replica) -> assertThat(
                    replica.command("INFO", "replication")).contains("master_link_status:up")));
        awaitConverged();
    }

    private void awaitConverged() {
        await("cluster " + nodeAddresses() + " converged").atMost(CONVERGENCE_TIMEOUT)
            .pollDelay(Duration.ZERO)
            .pollInterval(Duration.ofMillis(50))
            .untilAsserted(() -> assertThat(convergenceProblem()).as("what is not ready yet").isNull());
    }

    /** @return what is not ready yet, or null when every node sees the whole, healthy cluster */
    private @Nullable String convergenceProblem() {
        for (RedisServerProcess node : this.started) {
            String info = String.valueOf(node.command("CLUSTER", "INFO"));
            if (!info.contains("cluster_state:ok") || !info.contains("cluster_known_nodes:" + this.started.size())) {
                return "port " + node.port() + " CLUSTER INFO:\n" + info;
            }
            String clusterNodes = String.valueOf(node.command("CLUSTER", "NODES"));
            int covered = coveredSlots(clusterNodes);
            if (covered != SLOTS) {
                return "port " + node.port() + " sees " + covered + " slots covered; CLUSTER NODES:\n" + clusterNodes;
            }
        }
        return null;
    }

    /** @return the id of the master that {@code clusterNodes} (a {@code CLUSTER NODES} reply) says owns {@code slot} */
    private static @Nullable String ownerOf(int slot, String clusterNodes) {
        for (String line : clusterNodes.split("\n")) {
            String[] fields = line.trim().split(" ");
            if (fields.length < 9 || !fields[2].contains("master")) {
                continue;
            }
            if (slots(fields).get(slot)) {
                return fields[0];
            }
        }
        return null;
    }

    /**
     * Counts slots owned by connected, healthy masters in a {@code CLUSTER NODES} reply. A line reads
     * {@code <id> <ip:port@cport> <flags> <master> <ping> <pong> <epoch> <link> <slot> <slot> ...}, where a slot
     * is {@code n}, {@code a-b} or a bracketed migration marker.
     */
    private static int coveredSlots(String clusterNodes) {
        BitSet covered = new BitSet(SLOTS);
        for (String line : clusterNodes.split("\n")) {
            String[] fields = line.trim().split(" ");
            if (fields.length < 8) {
                continue;
            }
            String flags = fields[2];
            if (!flags.contains("master") || flags.contains("fail") || flags.contains("handshake")
                    || flags.contains("noaddr") || !"connected".equals(fields[7])) {
                continue;
            }
            covered.or(slots(fields));
        }
        return covered.cardinality();
    }

    /** The slots a {@code CLUSTER NODES} line (split on spaces) lists from its ninth field: {@code n} or {@code a-b}. */
    private static BitSet slots(String[] fields) {
        BitSet slots = new BitSet(SLOTS);
        for (int i = 8; i < fields.length; i++) {
            String range = fields[i];
            if (range.startsWith("[")) {
                continue; // a slot being migrated: not owned yet
            }
            int dash = range.indexOf('-');
            int from = Integer.parseInt(dash < 0 ? range : range.substring(0, dash));
            int to = dash < 0 ? from : Integer.parseInt(range.substring(dash + 1));
            slots.set(from, to + 1);
        }
        return slots;
    }

}
