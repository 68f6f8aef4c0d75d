package io.bloomguard.testsupport.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A loopback TCP proxy in front of a server that can stop all traffic without closing a socket. A frozen
 * proxy looks to a client like a hung server or a black-holed network: connections stay open, writes
 * succeed, replies never come. That is the failure a client timeout must catch, and the one a killed
 * process (which resets connections) does not produce.
 *
 * <p>Usage: {@code try (FreezableTcpProxy proxy = FreezableTcpProxy.start(redis.port())) { connect to
 * proxy.port(); proxy.freeze(); ... proxy.thaw(); }}.
 */
public final class FreezableTcpProxy implements AutoCloseable {

    private static final int CHUNK_SIZE = 16 * 1024;

    private final int targetPort;

    private final ServerSocket serverSocket;

    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

    private final ReentrantLock lock = new ReentrantLock();

    private final Condition thawed = this.lock.newCondition();

    private final AtomicInteger connectionCount = new AtomicInteger();

    private boolean frozen;

    private volatile boolean closed;

    private FreezableTcpProxy(int targetPort, ServerSocket serverSocket) {
        this.targetPort = targetPort;
        this.serverSocket = serverSocket;
    }

    /**
     * Starts a proxy on a free loopback port that forwards to {@code 127.0.0.1:targetPort}.
     * @param targetPort port of the server behind the proxy
     * @return the running, unfrozen proxy
     */
    public static FreezableTcpProxy start(int targetPort) {
        try {
            ServerSocket serverSocket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            FreezableTcpProxy proxy = new FreezableTcpProxy(targetPort, serverSocket);
            daemon(proxy::acceptLoop, "tcp-proxy-" + serverSocket.getLocalPort() + "-accept").start();
            return proxy;
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot open a proxy port", ex);
        }
    }

    /** Port clients connect to. */
    public int port() {
        return this.serverSocket.getLocalPort();
    }

    /**
     * Stops forwarding in both directions; sockets stay open. Bytes already read are held, later ones back up
     * in the socket buffers, and new connections are accepted but not forwarded.
     */
    public void freeze() {
        this.lock.lock();
        try {
            this.frozen = true;
        }
        finally {
            this.lock.unlock();
        }
    }

    /** Resumes forwarding, starting with whatever was held while frozen. */
    public void thaw() {
        this.lock.lock();
        try {
            this.frozen = false;
            this.thawed.signalAll();
        }
        finally {
            this.lock.unlock();
        }
    }

    /** Whether traffic is currently held. */
    public boolean isFrozen() {
        this.lock.lock();
        try {
            return this.frozen;
        }
        finally {
            this.lock.unlock();
        }
    }

    /** Closes the listening socket and every proxied connection. Safe to call more than once. */
    @Override
    public void close() {
        this.closed = true;
        thaw();
        closeQuietly(this.serverSocket);
        this.sockets.forEach(FreezableTcpProxy::closeQuietly);
        this.sockets.clear();
    }

    @Override
    public String toString() {
        return "proxy 127.0.0.1:" + port() + " -> 127.0.0.1:" + this.targetPort + (isFrozen() ? " (frozen)" : "");
    }

    private void acceptLoop() {
        while (!this.closed) {
            Socket client;
            try {
                client = this.serverSocket.accept();
            }
            catch (IOException ex) {
                // Closed by close(); anything else would also end the proxy.
                return;
            }
            track(client);
            int id = this.connectionCount.incrementAndGet();
            daemon(() -> connect(client, id), "tcp-proxy-" + port() + "-connect-" + id).start();
        }
    }

    /** Connects upstream only once unfrozen, so a frozen proxy does not even reach the server. */
    private void connect(Socket client, int id) {
        if (!awaitThawed()) {
            release(client);
            return;
        }
        Socket upstream = new Socket();
        try {
            track(upstream);
            upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), this.targetPort), 5000);
            client.setTcpNoDelay(true);
            upstream.setTcpNoDelay(true);
        }
        catch (IOException ex) {
            // The server is down: the client sees its connection close, as it would without the proxy.
            release(client);
            release(upstream);
            return;
        }
        String name = "tcp-proxy-" + port() + "-" + id;
        AtomicInteger openDirections = new AtomicInteger(2);
        daemon(() -> pump(client, upstream, openDirections), name + "-up").start();
        daemon(() -> pump(upstream, client, openDirections), name + "-down").start();
    }

    private void pump(Socket from, Socket to, AtomicInteger openDirections) {
        byte[] buffer = new byte[CHUNK_SIZE];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            int read;
            while ((read = in.read(buffer)) != -1) {
                if (!awaitThawed()) {
                    break;
                }
                out.write(buffer, 0, read);
                out.flush();
            }
            // Pass the end of stream on, so the other side sees a clean close.
            if (!to.isClosed()) {
                to.shutdownOutput();
            }
        }
        catch (IOException ex) {
            // A reset on one side resets the other.
            openDirections.set(0);
        }
        if (openDirections.decrementAndGet() <= 0) {
            release(from);
            release(to);
        }
    }

    /** @return false if the proxy was closed while waiting */
    private boolean awaitThawed() {
        this.lock.lock();
        try {
            while (this.frozen && !this.closed) {
                this.thawed.awaitUninterruptibly();
            }
            return !this.closed;
        }
        finally {
            this.lock.unlock();
        }
    }

    private void track(Socket socket) {
        this.sockets.add(socket);
        if (this.closed) {
            closeQuietly(socket);
        }
    }

    private void release(Socket socket) {
        closeQuietly(socket);
        this.sockets.remove(socket);
    }

    private static Thread daemon(Runnable task, String name) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        return thread;
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        }
        catch (Exception ex) {
            // Already closed or reset: nothing left to release.
        }
    }

}
