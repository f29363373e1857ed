package dev.rota.agent.server;

import com.sun.net.httpserver.HttpExchange;
import dev.rota.agent.tasks.Conduit;
import dev.rota.agent.tasks.Execution;
import dev.rota.agentapi.ExecFrames;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ways into a running task for the controller to tunnel a user through (the user needs to reach
 * only the controller, and the controller reaches the worker over the agent's pinned TLS): {@code
 * POST /v1/tasks/{id}/ports/{name}/connect} (one of its named ports), {@code .../console} (its
 * serial console), {@code .../exec?command=...} (a command run in it). Full duplex over one
 * HTTP/1.1 exchange: the request's chunked body is what the user sends, the answer's chunked body
 * what comes back. The end of the request body half-closes the connection to the task; the task
 * closing it ends the answer.
 */
public final class PortTunnels implements AutoCloseable {
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
  public PortTunnels(String bindHost) {
    this.connectHost =
        bindHost.equals("0.0.0.0") || bindHost.equals("::") || bindHost.isBlank()
            ? "127.0.0.1"
            : bindHost;
  }

  /** A connection to {@code hostPort} on the worker, where a task's port is forwarded. */
  Conduit dial(int hostPort) throws IOException {
    Socket vm = new Socket();
    vm.setTcpNoDelay(true);
    try {
      vm.connect(new InetSocketAddress(connectHost, hostPort), CONNECT_TIMEOUT_MS);
    } catch (IOException e) {
      vm.close();
      throw e;
    }
    return Conduit.of(vm);
  }

  /**
   * How long a tunnel that ended waits for the rest of the user's request before it closes: closing
   * a connection with unread bytes resets it, which can lose the end of the answer.
   */
  static final long LAST_READ_MS = 2_000;

  /**
   * Answers 200, then pumps both ways on threads of its own and returns; the exchange is closed
   * when both directions have ended.
   */
  void open(HttpExchange x, String what, Conduit vm) throws IOException {
    x.getResponseHeaders().set("Content-Type", "application/octet-stream");
    x.sendResponseHeaders(200, 0);
    OutputStream toUser = x.getResponseBody();
    log.debug("tunnel to {} open", what);
    CompletableFuture<Void> read =
        feed(
            x,
            vm.output(),
            () -> {
              try {
                vm.shutdownOutput();
              } catch (IOException e) {
                vm.close();
              }
            });
    pumps.execute(
        () -> {
          try {
            copy(vm.input(), toUser);
          } catch (IOException e) {
            // the user or the VM went away: either ends the tunnel
          } finally {
            vm.close();
            end(x, toUser, read);
            log.debug("tunnel to {} closed", what);
          }
        });
  }

  /**
   * Answers 200, then carries the command to its end on threads of its own: what the user sends is
   * its stdin; its output and exit code go back in {@link ExecFrames}.
   */
  void exec(HttpExchange x, String what, Execution command) throws IOException {
    x.getResponseHeaders().set("Content-Type", "application/octet-stream");
    x.sendResponseHeaders(200, 0);
    OutputStream toUser = x.getResponseBody();
    CompletableFuture<Void> read =
        feed(
            x,
            command.stdin(),
            () -> {
              try {
                command.stdin().close();
              } catch (IOException e) {
                // the command has ended
              }
            });
    pumps.execute(
        () -> {
          ExecFrames.Writer frames = new ExecFrames.Writer(toUser);
          try {
            frames.exit(command.await(frames));
          } catch (IOException e) {
            command.cancel(); // the user went away
          } catch (InterruptedException e) {
            command.cancel();
            Thread.currentThread().interrupt();
          } finally {
            end(x, toUser, read);
            log.debug("exec in {} ended", what);
          }
        });
  }

  /**
   * Copies the request's body to {@code sink} on a thread of its own, the one reader of it, to its
   * end; once {@code sink} fails (the task closed it) the rest is read and dropped. {@code atEnd}
   * runs when the user has finished sending, or gone.
   */
  private CompletableFuture<Void> feed(HttpExchange x, OutputStream sink, Runnable atEnd) {
    CompletableFuture<Void> read = new CompletableFuture<>();
    pumps.execute(
        () -> {
          byte[] buffer = new byte[16 * 1024];
          boolean sinking = true;
          try (InputStream in = x.getRequestBody()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
              if (sinking) {
                try {
                  sink.write(buffer, 0, n);
                  sink.flush();
                } catch (IOException e) {
                  sinking = false;
                }
              }
            }
          } catch (IOException e) {
            // the user went away: for the task, as if the user had finished sending
          } finally {
            atEnd.run();
            read.complete(null);
          }
        });
    return read;
  }

  /**
   * Ends the answer once the user's request has been read to its end (or a while has passed), then
   * the exchange: it is closed here only when nothing reads its request any more.
   */
  private static void end(HttpExchange x, OutputStream toUser, CompletableFuture<Void> read) {
    boolean done;
    try {
      read.get(LAST_READ_MS, TimeUnit.MILLISECONDS);
      done = true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      done = false;
    } catch (ExecutionException | TimeoutException e) {
      done = false;
    }
    try {
      toUser.close(); // the server then closes a connection whose request is unread
    } catch (IOException e) {
      // the connection to the controller is gone already
    }
    if (done) {
      x.close();
    }
  }

  private static void copy(InputStream in, OutputStream out) throws IOException {
    byte[] buffer = new byte[16 * 1024];
    int n;
    while ((n = in.read(buffer)) >= 0) {
      out.write(buffer, 0, n);
      out.flush();
    }
  }

  @Override
  public void close() {
    pumps.shutdownNow();
  }
}
