package dev.rota.agent;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * A TCP proxy in front of an agent that loses one answer, the first it sends once {@code cut}
 * holds: the connection to the client is reset then, while the agent's side stays open (what it
 * sends is read and dropped), so that the agent carries out the request and its client never hears
 * how it went. Bytes pass through untouched, TLS and all.
 */
final class AnswerCuttingProxy implements AutoCloseable {
  private final ServerSocket server;
  private final int target;
  private final BooleanSupplier cut;
  private final AtomicInteger cuts = new AtomicInteger();
  private final ExecutorService pumps =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "cutting-proxy");
            t.setDaemon(true);
            return t;
          });

  AnswerCuttingProxy(int target, BooleanSupplier cut) throws IOException {
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.target = target;
    this.cut = cut;
    pumps.execute(this::accept);
  }

  int port() {
    return server.getLocalPort();
  }

  /** How many answers were lost so far: none, or the one. */
  int cuts() {
    return cuts.get();
  }

  @Override
  public void close() throws IOException {
    server.close();
    pumps.shutdownNow();
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        Socket agent = new Socket(InetAddress.getLoopbackAddress(), target);
        pumps.execute(() -> pump(client, agent, false));
        pumps.execute(() -> pump(agent, client, true));
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void pump(Socket from, Socket to, boolean answers) {
    byte[] buffer = new byte[64 * 1024];
    boolean cutOff = false;
    try (InputStream in = from.getInputStream()) {
      OutputStream out = to.getOutputStream();
      int n;
      while ((n = in.read(buffer)) >= 0) {
        if (answers && !cutOff && cut.getAsBoolean() && cuts.compareAndSet(0, 1)) {
          cutOff = true;
          to.setSoLinger(true, 0); // a reset, as a connection lost on the way
          to.close();
        }
        if (!cutOff) {
          out.write(buffer, 0, n);
          out.flush();
        }
      }
    } catch (IOException e) {
      // one side went away
    } finally {
      try {
        to.close();
      } catch (IOException ignored) {
        // closing
      }
    }
  }
}
