package io.bloomguard.testsupport.redis;

import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A real three-master Redis Cluster (no replicas) on loopback ports, built the way {@code redis-cli --cluster
 * create} does it, so tests see genuine {@code MOVED} redirects and slot ownership. Each node is a
 * {@link RedisServerProcess} and can be killed and restarted on its own.
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

    private final List<RedisServerProcess> nodes;

    private RedisClusterProcess(List<RedisServerProcess> nodes) {
        this.nodes = List.copyOf(nodes);
    }

    /**
     * Starts three nodes, gives each a third of the slots, joins them and waits until every node reports a
     * healthy cluster that covers all slots.
     * @return the running cluster
     */
    public static RedisClusterProcess start() {
        List<RedisServerProcess> nodes = new ArrayList<>(NODE_COUNT);
        try {
            for (int i = 0; i < NODE_COUNT; i++) {
                nodes.add(RedisServerProcess.start("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                        "--cluster-node-timeout", "5000"));
            }
            RedisClusterProcess cluster = new RedisClusterProcess(nodes);
            cluster.assignSlotsAndMeet();
            cluster.awaitConverged();
            return cluster;
        }
        catch (RuntimeException ex) {
            nodes.forEach(RedisServerProcess::close);
            throw ex;
        }
    }

    /** Nodes in slot order: node 0 owns slots 0-5460, node 1 5461-10922, node 2 10923-16383. */
    public List<RedisServerProcess> nodes() {
        return this.nodes;
    }

    /** One {@code redis://} URI per node, as cluster clients take them. */
    public List<String> redisUris() {
        return this.nodes.stream().map(RedisServerProcess::redisUri).toList();
    }

    /** Comma-separated {@code host:port} of every node, the format of {@code spring.data.redis.cluster.nodes}. */
    public String nodeAddresses() {
        return this.nodes.stream().map((node) -> node.host() + ":" + node.port()).collect(Collectors.joining(","));
    }

    /** Deletes every key on every node. */
    public void flushAll() {
        this.nodes.forEach((node) -> node.command("FLUSHALL"));
    }

    /** Stops every node and deletes their directories. Safe to call more than once. */
    @Override
    public void close() {
        @Nullable RuntimeException failure = null;
        for (RedisServerProcess node : this.nodes) {
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
        for (RedisServerProcess other : this.nodes.subList(1, NODE_COUNT)) {
            first.command("CLUSTER", "MEET", other.host(), String.valueOf(other.port()));
        }
    }

    private void awaitConverged() {
        await("cluster " + nodeAddresses() + " converged").atMost(CONVERGENCE_TIMEOUT)
            .pollDelay(Duration.ZERO)
            .pollInterval(Duration.ofMillis(50))
            .untilAsserted(() -> assertThat(convergenceProblem()).as("what is not ready yet").isNull());
    }

    /** @return what is not ready yet, or null when every node sees the whole, healthy cluster */
    private @Nullable String convergenceProblem() {
        for (RedisServerProcess node : this.nodes) {
            String info = String.valueOf(node.command("CLUSTER", "INFO"));
            if (!info.contains("cluster_state:ok") || !info.contains("cluster_known_nodes:" + NODE_COUNT)) {
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
            for (int i = 8; i < fields.length; i++) {
                String range = fields[i];
                if (range.startsWith("[")) {
                    continue;
                }
                int dash = range.indexOf('-');
                int from = Integer.parseInt(dash < 0 ? range : range.substring(0, dash));
                int to = dash < 0 ? from : Integer.parseInt(range.substring(dash + 1));
                covered.set(from, to + 1);
            }
        }
        return covered.cardinality();
    }

}
