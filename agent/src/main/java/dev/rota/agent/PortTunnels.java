package dev.rota.agent;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /v1/tasks/{id}/ports/{name}/connect}: a connection to one of a running task's named
 * ports, for the controller to tunnel a user's connection through (the user needs to reach only the
 * controller, and the controller reaches the worker over the agent's pinned TLS). Full duplex over
 * one HTTP/1.1 exchange: the request's chunked body is what the user sends, the answer's chunked
 * body what the VM sends back. The end of the request body half-closes the connection to the VM;
 * the VM closing it ends the answer.
 */
final class PortTunnels implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PortTunnels.class);

  /** How long the VM's port has to accept. */
  static final int CONNECT_TIMEOUT_MS = 5_000;

  /** One thread per direction of each open tunnel, apart from the task API's bounded threads. */
  private final ExecutorService pumps =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "agent-tunnel");
            t.setDaemon(true);
            return t;
          });

  private final String connectHost;

  /**
   * @param bindHost where the worker's ports listen: a wildcard is reached on loopback
   */
  PortTunnels(String bindHost) {
    this.connectHost =
        bindHost.equals("0.0.0.0") || bindHost.equals("::") || bindHost.isBlank()
            ? "127.0.0.1"
            : bindHost;
  }

  /**
   * Connects to {@code hostPort} and answers 200, then pumps both ways on threads of its own and
   * returns; the exchange is closed when both directions have ended. Throws if the VM's port does
   * not accept, before anything is answered.
   */
  void open(HttpExchange x, String what, int hostPort) throws IOException {
    Socket vm = new Socket();
    vm.setTcpNoDelay(true);
    try {
      vm.connect(new InetSocketAddress(connectHost, hostPort), CONNECT_TIMEOUT_MS);
    } catch (IOException e) {
      vm.close();
      throw e;
    }
    x.getResponseHeaders().set("Content-Type", "application/octet-stream");
    x.sendResponseHeaders(200, 0);
    InputStream fromUser = x.getRequestBody();
    OutputStream toUser = x.getResponseBody();
    log.debug("tunnel to {} on port {} open", what, hostPort);
    pumps.execute(
        () -> {
          try {
            copy(fromUser, vm.getOutputStream());
            vm.shutdownOutput();
          } catch (IOException e) {
            close(vm);
          }
        });
    pumps.execute(
        () -> {
          try {
            copy(vm.getInputStream(), toUser);
          } catch (IOException e) {
            // the user or the VM went away: either ends the tunnel
          } finally {
            close(vm);
            try {
              toUser.close();
            } catch (IOException e) {
              // the connection to the controller is gone already
            }
            x.close();
            log.debug("tunnel to {} on port {} closed", what, hostPort);
          }
        });
  }

  private static void copy(InputStream in, OutputStream out) throws IOException {
    byte[] buffer = new byte[16 * 1024];
    int n;
    while ((n = in.read(buffer)) >= 0) {
      out.write(buffer, 0, n);
      out.flush();
    }
  }

  private static void close(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // closing
    }
  }

  @Override
  public void close() {
    pumps.shutdownNow();
  }
}
