package dev.rota.api.forward;

import dev.rota.agentapi.TaskId;
import dev.rota.agentapi.TaskTunnel;
import dev.rota.control.TaskAccess;
import dev.rota.core.model.VmStatus;
import dev.rota.store.VmRepository;
import dev.rota.store.VmRow;
import dev.rota.store.WorkerRepository;
import dev.rota.store.WorkerRow;
import io.micronaut.websocket.CloseReason;
import io.micronaut.websocket.WebSocketSession;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries a user's WebSocket into a running VM through its agent over the agent's pinned TLS
 * ({@link TaskTunnel}), as {@code kubectl} goes through the API server: a user needs to reach only
 * the controller. The ways in are {@link PortForwardSocket} (a named port), {@link ConsoleSocket}
 * (the serial console) and {@link ExecSocket} (a command). Binary messages carry the bytes both
 * ways. The server's first message is empty: the tunnel is open, and the client may send. An empty
 * one from the client says the user has finished sending (the VM's side is half-closed); the VM
 * closing its end closes the socket. A VM that does not run, or has no such way in, closes the
 * socket at once with the reason: code 4404 (no such VM or port) or 4409 (not running, or the VM
 * offers no such way in), 4400 (the agent cannot run that command), 4502 (its agent cannot be
 * reached). All are authorised by {@code compute:connect} ({@code AuthFilter}).
 */
@Singleton
public class TunnelRelay {
  /** The paths of the sockets that go into a VM, for the authorization of a socket's opening. */
  public static final Pattern PATHS =
      Pattern.compile("^/v1/vms/([^/]+)/(ports/[^/]+/forward|console|exec)$");

  private static final Logger log = LoggerFactory.getLogger(TunnelRelay.class);

  /** How long a message waits for its socket's tunnel to the agent to open. */
  static final Duration OPENING = Duration.ofSeconds(30);

  /** Why a socket is closed before its tunnel opens: its close code and reason. */
  static final class Refused extends Exception {
    final int code;

    Refused(int code, String why) {
      super(why);
      this.code = code;
    }
  }

  /** Which way into the VM: the agent's request target for its task, or why there is none. */
  interface Way {
    String target(VmRow vm, String taskId) throws Refused;
  }

  /**
   * Each open socket's tunnel, by the socket's id: a client may send before the tunnel is open (its
   * opening reaches the agent), so its messages wait for it, in order; null when refused.
   */
  private final Map<String, CompletableFuture<TaskTunnel>> tunnels = new ConcurrentHashMap<>();

  /** Each open socket's writer to its tunnel, by socket. */
  private final Map<String, Writer> writers = new ConcurrentHashMap<>();

  private final VmRepository vms;
  private final WorkerRepository workers;
  private final TaskAccess tasks;

  public TunnelRelay(VmRepository vms, WorkerRepository workers, TaskAccess tasks) {
    this.vms = vms;
    this.workers = workers;
    this.tasks = tasks;
  }

  private CompletableFuture<TaskTunnel> tunnel(WebSocketSession socket) {
    return tunnels.computeIfAbsent(socket.getId(), id -> new CompletableFuture<>());
  }

  /**
   * Opens the tunnel on a thread of its own: the server takes the socket's messages only once the
   * socket's opening returns (a frame that comes sooner is lost), so the client waits for the first
   * message, empty, that says the tunnel is open.
   */
  void opened(WebSocketSession socket, String name, String what, Way way) {
    CompletableFuture<TaskTunnel> opened = tunnel(socket);
    Thread carrying =
        new Thread(
            () -> {
              TaskTunnel tunnel = open(socket, name, what, way);
              opened.complete(tunnel);
              if (tunnel == null) {
                return;
              }
              if (!tunnels.containsKey(socket.getId())) {
                // The client left while the tunnel was opening.
                close(tunnel);
                return;
              }
              pump(tunnel, socket);
            },
            "tunnel-" + name);
    carrying.setDaemon(true);
    carrying.start();
  }

  /** The tunnel for this socket, or null when the socket was closed with the reason. */
  private TaskTunnel open(WebSocketSession socket, String name, String what, Way way) {
    try {
      VmRow vm = vms.findById(name).orElseThrow(() -> new Refused(4404, "no vm " + name));
      String task = TaskId.of(vm.taskName(), vm.state().restartCount()).toString();
      String target = way.target(vm, task);
      if (!VmStatus.RUNNING.wireName().equals(vm.state().status()) || vm.state().worker() == null) {
        throw new Refused(4409, "vm " + name + " is " + vm.state().status() + ", not running");
      }
      WorkerRow worker =
          workers
              .findById(vm.state().worker())
              .orElseThrow(() -> new Refused(4409, "vm " + name + "'s worker is gone"));
      TaskTunnel tunnel;
      try {
        tunnel = tasks.connect(worker, target);
      } catch (TaskTunnel.Refused e) {
        int code =
            switch (e.status()) {
              case 400 -> 4400;
              case 404 -> 4404;
              case 409 -> 4409;
              default -> 4502;
            };
        throw new Refused(code, e.getMessage());
      } catch (IOException e) {
        throw new Refused(
            4502, "worker " + worker.name() + " cannot be reached: " + e.getMessage());
      }
      log.info("{} of vm {} on worker {}", what, name, worker.name());
      return tunnel;
    } catch (Refused e) {
      // A close reason is at most 123 bytes.
      String reason =
          e.getMessage().length() > 120 ? e.getMessage().substring(0, 120) : e.getMessage();
      socket.close(new CloseReason(e.code, reason));
      return null;
    }
  }

  /** The VM's bytes to the client, until the VM closes its end. */
  private static void pump(TaskTunnel tunnel, WebSocketSession socket) {
    byte[] buffer = new byte[16 * 1024];
    try (InputStream in = tunnel.input()) {
      socket.sendSync(new byte[0]); // open: the client may send now
      int n;
      while ((n = in.read(buffer)) >= 0) {
        if (n > 0) {
          socket.sendSync(Arrays.copyOf(buffer, n));
        }
      }
      socket.close(CloseReason.NORMAL);
    } catch (IOException | RuntimeException e) {
      if (socket.isOpen()) {
        socket.close(new CloseReason(4502, "the tunnel broke: " + e.getMessage()));
      }
    }
  }

  /** Bytes for the VM; an empty message, that the user has finished sending. */
  void message(byte[] bytes, WebSocketSession socket) {
    TaskTunnel tunnel;
    try {
      tunnel = tunnel(socket).get(OPENING.toSeconds(), TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    } catch (ExecutionException | TimeoutException e) {
      socket.close(new CloseReason(4502, "the tunnel did not open"));
      return;
    }
    if (tunnel == null) {
      return;
    }
    try {
      writers.computeIfAbsent(socket.getId(), id -> new Writer(tunnel, socket)).queue.put(bytes);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  void closed(WebSocketSession socket) {
    Writer writer = writers.remove(socket.getId());
    if (writer != null) {
      writer.thread.interrupt();
    }
    CompletableFuture<TaskTunnel> opened = tunnels.remove(socket.getId());
    TaskTunnel tunnel = opened == null ? null : opened.getNow(null);
    if (tunnel != null) {
      close(tunnel);
    }
  }

  private static void close(TaskTunnel tunnel) {
    try {
      tunnel.close();
    } catch (IOException e) {
      // closing
    }
  }

  /**
   * Writes a socket's messages to its tunnel on a thread of its own, in order, so that a VM that
   * reads slowly holds up its own messages, not the event loop's other connections; a full queue
   * (some MiB) holds up this socket's reading.
   */
  private static final class Writer {
    final BlockingQueue<byte[]> queue = new LinkedBlockingQueue<>(256);
    final Thread thread;

    Writer(TaskTunnel tunnel, WebSocketSession socket) {
      thread =
          new Thread(
              () -> {
                try {
                  while (true) {
                    byte[] bytes = queue.take();
                    if (bytes.length == 0) {
                      tunnel.output().close();
                      return;
                    }
                    tunnel.output().write(bytes);
                  }
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                } catch (IOException e) {
                  if (socket.isOpen()) {
                    socket.close(new CloseReason(4502, "the tunnel broke: " + e.getMessage()));
                  }
                }
              },
              "tunnel-writer");
      thread.setDaemon(true);
      thread.start();
    }
  }
}
