package dev.rota.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A TCP proxy in front of a database server that can cut the connection that carried the latest
 * request at a chosen point of its conversation: before its next request reaches the server, or
 * once the server has answered it (the answer is dropped). Cut during COMMIT, the first leaves the
 * transaction uncommitted, the second committed, and to the client both look the same: the
 * connection went away.
 */
final class CuttingProxy implements AutoCloseable {
  private final ServerSocket server;
  private final int target;
  private final ExecutorService pumps =
      Executors.newCachedThreadPool(
          runnable -> {
            Thread t = new Thread(runnable, "cutting-proxy");
            t.setDaemon(true);
            return t;
          });
  private final AtomicReference<Link> lastRequested = new AtomicReference<>();
  private final AtomicInteger cuts = new AtomicInteger();

  private CuttingProxy(int target) throws IOException {
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.target = target;
    pumps.execute(this::accept);
  }

  /** A proxy on a free loopback port to {@code port} on loopback. */
  static CuttingProxy to(int port) throws IOException {
    return new CuttingProxy(port);
  }

  int port() {
    return server.getLocalPort();
  }

  /**
   * The connection that sent the latest request will be cut before its next request reaches the
   * server.
   */
  void cutBeforeTheNextRequest() {
    lastRequested.get().cut = Cut.BEFORE_REQUEST;
  }

  /**
   * The connection that sent the latest request will be cut once the server answers its next
   * request.
   */
  void cutAfterTheNextAnswer() {
    lastRequested.get().cut = Cut.AFTER_ANSWER;
  }

  /** How many connections were cut so far. */
  int cuts() {
    return cuts.get();
  }

  @Override
  public void close() throws IOException {
    server.close();
    pumps.shutdownNow();
  }

  private enum Cut {
    NONE,
    BEFORE_REQUEST,
    AFTER_ANSWER,
    ON_ANSWER
  }

  private final class Link {
    final Socket client;
    final Socket upstream;
    volatile Cut cut = Cut.NONE;

    Link(Socket client, Socket upstream) {
      this.client = client;
      this.upstream = upstream;
    }

    void requests() {
      pump(client, upstream, true);
    }

    void answers() {
      pump(upstream, client, false);
    }

    private void pump(Socket from, Socket to, boolean requests) {
      byte[] buffer = new byte[64 * 1024];
      try (InputStream in = from.getInputStream();
          OutputStream out = to.getOutputStream()) {
        int n;
        while ((n = in.read(buffer)) >= 0) {
          if (requests) {
            if (cut == Cut.BEFORE_REQUEST) {
              cutOff();
              return;
            }
            if (cut == Cut.AFTER_ANSWER) {
              cut = Cut.ON_ANSWER;
            }
            lastRequested.set(this);
          } else if (cut == Cut.ON_ANSWER) {
            cutOff();
            return;
          }
          out.write(buffer, 0, n);
          out.flush();
        }
      } catch (IOException e) {
        // one side went away: so does the other
      } finally {
        closeBoth();
      }
    }

    private void cutOff() {
      cuts.incrementAndGet();
      closeBoth();
    }

    private void closeBoth() {
      try {
        client.close();
      } catch (IOException ignored) {
        // closing
      }
      try {
        upstream.close();
      } catch (IOException ignored) {
        // closing
      }
    }
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        client.setTcpNoDelay(true);
        Socket upstream = new Socket(InetAddress.getLoopbackAddress(), target);
        upstream.setTcpNoDelay(true);
        Link link = new Link(client, upstream);
        pumps.execute(link::requests);
        pumps.execute(link::answers);
      } catch (IOException e) {
        if (!server.isClosed()) {
          throw new IllegalStateException("the proxy cannot connect its client", e);
        }
      }
    }
  }
}
