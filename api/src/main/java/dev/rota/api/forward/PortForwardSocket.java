package dev.rota.api.forward;

import dev.rota.agentapi.PortSpec;
import dev.rota.agentapi.TaskId;
import dev.rota.agentapi.TaskTunnel;
import dev.rota.agents.AgentClient;
import dev.rota.model.VmStatus;
import dev.rota.settings.AgentCallSettings;
import dev.rota.store.VmRepository;
import dev.rota.store.VmRow;
import dev.rota.store.WorkerRepository;
import dev.rota.store.WorkerRow;
import io.micronaut.websocket.CloseReason;
import io.micronaut.websocket.WebSocketSession;
import io.micronaut.websocket.annotation.OnClose;
import io.micronaut.websocket.annotation.OnMessage;
import io.micronaut.websocket.annotation.OnOpen;
import io.micronaut.websocket.annotation.ServerWebSocket;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code rota vm port-forward}: a user's connection to one of a running VM's named ports, carried
 * over a WebSocket to this host and on to the VM's agent over its pinned TLS ({@link TaskTunnel}),
 * as {@code kubectl port-forward} goes through the API server: a user needs to reach only the
 * controller. Binary messages carry the bytes both ways. The server's first message is empty: the
 * tunnel is open, and the client may send. An empty one from the client says the user has finished
 * sending (the VM's side is half-closed); the VM closing its end closes the socket. The port is
 * named by its name or its guest port. Authorised by {@code compute:connect} ({@code AuthFilter});
 * a VM that does not run, or has no such port, closes the socket at once with the reason (code 4404
 * or 4409; 4502 when its agent cannot be reached or refuses).
 */
@ServerWebSocket(PortForwardSocket.PATH)
public class PortForwardSocket {
  public static final String PATH = "/v1/vms/{name}/ports/{port}/forward";

  /** The path's form, for the authorization of a socket's opening. */
  public static final java.util.regex.Pattern PATTERN =
      java.util.regex.Pattern.compile("^/v1/vms/[^/]+/ports/[^/]+/forward$");

  private static final Logger log = LoggerFactory.getLogger(PortForwardSocket.class);

  /** How long a message waits for its socket's tunnel to the agent to open. */
  static final java.time.Duration OPENING = java.time.Duration.ofSeconds(30);

  /**
   * Each open socket's tunnel, by the socket's id: a client may send before the tunnel is open (its
   * opening reaches the agent), so its messages wait for it, in order; null when refused.
   */
  private final java.util.Map<String, java.util.concurrent.CompletableFuture<TaskTunnel>> tunnels =
      new java.util.concurrent.ConcurrentHashMap<>();

  private final VmRepository vms;
  private final WorkerRepository workers;
  private final AgentClient agents;
  private final AgentCallSettings calls;

  public PortForwardSocket(
      VmRepository vms, WorkerRepository workers, AgentClient agents, AgentCallSettings calls) {
    this.vms = vms;
    this.workers = workers;
    this.agents = agents;
    this.calls = calls;
  }

  private java.util.concurrent.CompletableFuture<TaskTunnel> tunnel(WebSocketSession socket) {
    return tunnels.computeIfAbsent(
        socket.getId(), id -> new java.util.concurrent.CompletableFuture<>());
  }

  /**
   * Opens the tunnel on a thread of its own: the server takes the socket's messages only once this
   * returns (a frame that comes sooner is lost), so the client waits for the first message, empty,
   * that says the tunnel is open.
   */
  @OnOpen
  public void onOpen(String name, String port, WebSocketSession socket) {
    java.util.concurrent.CompletableFuture<TaskTunnel> opened = tunnel(socket);
    Thread carrying =
        new Thread(
            () -> {
              TaskTunnel tunnel = open(name, port, socket);
              opened.complete(tunnel);
              if (tunnel == null) {
                return;
              }
              if (!tunnels.containsKey(socket.getId())) {
                // The client left while the tunnel was opening.
                try {
                  tunnel.close();
                } catch (IOException e) {
                  // closing
                }
                return;
              }
              pump(tunnel, socket);
            },
            "port-forward-" + name);
    carrying.setDaemon(true);
    carrying.start();
  }

  /** The tunnel for this socket, or null when the socket was closed with the reason. */
  private TaskTunnel open(String name, String port, WebSocketSession socket) {
    VmRow vm = vms.findById(name).orElse(null);
    if (vm == null) {
      refuse(socket, 4404, "no vm " + name);
      return null;
    }
    PortSpec named =
        vm.spec().ports().stream()
            .filter(p -> p.name().equals(port) || String.valueOf(p.port()).equals(port))
            .findFirst()
            .orElse(null);
    if (named == null) {
      refuse(socket, 4404, "vm " + name + " has no port named " + port);
      return null;
    }
    if (!VmStatus.RUNNING.wireName().equals(vm.state().status()) || vm.state().worker() == null) {
      refuse(socket, 4409, "vm " + name + " is " + vm.state().status() + ", not running");
      return null;
    }
    WorkerRow worker = workers.findById(vm.state().worker()).orElse(null);
    if (worker == null) {
      refuse(socket, 4409, "vm " + name + "'s worker is gone");
      return null;
    }
    String task = TaskId.of(vm.name(), vm.state().restartCount()).toString();
    TaskTunnel tunnel;
    try {
      tunnel = agents.connect(worker.agent(), task, named.name(), calls.timeout());
    } catch (TaskTunnel.Refused e) {
      refuse(socket, e.status() == 409 ? 4409 : e.status() == 404 ? 4404 : 4502, e.getMessage());
      return null;
    } catch (IOException e) {
      refuse(socket, 4502, "worker " + worker.name() + " cannot be reached: " + e.getMessage());
      return null;
    }
    log.info("port-forward to vm {} port {} on worker {}", name, named.name(), worker.name());
    return tunnel;
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
  @OnMessage
  public void onMessage(byte[] bytes, WebSocketSession socket) throws IOException {
    TaskTunnel tunnel;
    try {
      tunnel = tunnel(socket).get(OPENING.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
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

  /** Each open socket's writer to its tunnel, by socket. */
  private final java.util.Map<String, Writer> writers =
      new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * Writes a socket's messages to its tunnel on a thread of its own, in order, so that a VM that
   * reads slowly holds up its own messages, not the event loop's other connections; a full queue
   * (some MiB) holds up this socket's reading.
   */
  private static final class Writer {
    final java.util.concurrent.BlockingQueue<byte[]> queue =
        new java.util.concurrent.LinkedBlockingQueue<>(256);

    Writer(TaskTunnel tunnel, WebSocketSession socket) {
      Thread t =
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
              "port-forward-writer");
      t.setDaemon(true);
      t.start();
      this.thread = t;
    }

    final Thread thread;
  }

  @OnClose
  public void onClose(WebSocketSession socket) throws IOException {
    Writer writer = writers.remove(socket.getId());
    if (writer != null) {
      writer.thread.interrupt();
    }
    java.util.concurrent.CompletableFuture<TaskTunnel> opened = tunnels.remove(socket.getId());
    TaskTunnel tunnel = opened == null ? null : opened.getNow(null);
    if (tunnel != null) {
      tunnel.close();
    }
  }

  private static void refuse(WebSocketSession socket, int code, String why) {
    // A close reason is at most 123 bytes.
    String reason = why.length() > 120 ? why.substring(0, 120) : why;
    socket.close(new CloseReason(code, reason));
  }
}
