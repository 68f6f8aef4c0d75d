package io.bloomguard.testsupport.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * Loopback ports a {@code redis-server} (or another server a test starts, such as PostgreSQL) can bind. A cluster node
 * also binds port + 10000 for its bus (6.2 cannot move the bus with {@code cluster-port}), so for one both ports must
 * be free.
 */
public final class LoopbackPorts {

    private static final int CLUSTER_BUS_PORT_OFFSET = 10_000;

    private LoopbackPorts() {
    }

    /** A port that is free now, and for a cluster node its bus port too; someone may still take it before us. */
    public static int free(boolean withClusterBus) {
        for (int attempt = 0; attempt < 100; attempt++) {
            int candidate = bindAndRelease(0);
            if (!withClusterBus || isFree(candidate + CLUSTER_BUS_PORT_OFFSET)) {
                return candidate;
            }
        }
        throw new IllegalStateException("Found no free loopback port pair for a cluster node");
    }

    /** Whether a server could bind {@code port} now, and for a cluster node its bus port too. */
    public static boolean areFree(int port, boolean withClusterBus) {
        return isFree(port) && (!withClusterBus || isFree(port + CLUSTER_BUS_PORT_OFFSET));
    }

    private static boolean isFree(int port) {
        return port <= 65_535 && bindAndRelease(port) == port;
    }

    /**
     * Binds as {@code redis-server} does (with {@code SO_REUSEADDR}, so connections of a killed server that linger
     * in {@code TIME_WAIT} do not count).
     * @return the bound port, or -1 if {@code port} is taken
     */
    private static int bindAndRelease(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return socket.getLocalPort();
        }
        catch (IOException ex) {
            if (port == 0) {
                throw new UncheckedIOException("No free loopback port", ex);
            }
            return -1;
        }
    }

}
