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
 * controller. Binary messages carry the bytes both ways; an empty one says the user has finished
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
  private static final String TUNNEL = "rota.tunnel";

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

  @OnOpen
  public void onOpen(String name, String port, WebSocketSession session) {
    VmRow vm = vms.findById(name).orElse(null);
    if (vm == null) {
      refuse(session, 4404, "no vm " + name);
      return;
    }
    PortSpec named =
        vm.spec().ports().stream()
            .filter(p -> p.name().equals(port) || String.valueOf(p.port()).equals(port))
            .findFirst()
            .orElse(null);
    if (named == null) {
      refuse(session, 4404, "vm " + name + " has no port named " + port);
      return;
    }
    if (!VmStatus.RUNNING.wireName().equals(vm.state().status()) || vm.state().worker() == null) {
      refuse(session, 4409, "vm " + name + " is " + vm.state().status() + ", not running");
      return;
    }
    WorkerRow worker = workers.findById(vm.state().worker()).orElse(null);
    if (worker == null) {
      refuse(session, 4409, "vm " + name + "'s worker is gone");
      return;
    }
    String task = TaskId.of(vm.name(), vm.state().restartCount()).toString();
    TaskTunnel tunnel;
    try {
      tunnel = agents.connect(worker.agent(), task, named.name(), calls.timeout());
    } catch (TaskTunnel.Refused e) {
      refuse(session, e.status() == 409 ? 4409 : e.status() == 404 ? 4404 : 4502, e.getMessage());
      return;
    } catch (IOException e) {
      refuse(session, 4502, "worker " + worker.name() + " cannot be reached: " + e.getMessage());
      return;
    }
    session.put(TUNNEL, tunnel);
    log.info("port-forward to vm {} port {} on worker {}", name, named.name(), worker.name());
    Thread pump =
        new Thread(
            () -> {
              byte[] buffer = new byte[16 * 1024];
              try (InputStream in = tunnel.input()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                  if (n > 0) {
                    session.sendSync(Arrays.copyOf(buffer, n));
                  }
                }
                session.close(CloseReason.NORMAL);
              } catch (IOException | RuntimeException e) {
                if (session.isOpen()) {
                  session.close(new CloseReason(4502, "the tunnel broke: " + e.getMessage()));
                }
              }
            },
            "port-forward-" + name);
    pump.setDaemon(true);
    pump.start();
  }

  /** Bytes for the VM; an empty message, that the user has finished sending. */
  @OnMessage
  public void onMessage(byte[] bytes, WebSocketSession session) throws IOException {
    TaskTunnel tunnel = session.get(TUNNEL, TaskTunnel.class).orElse(null);
    if (tunnel == null) {
      return;
    }
    if (bytes.length == 0) {
      tunnel.output().close();
    } else {
      tunnel.output().write(bytes);
    }
  }

  @OnClose
  public void onClose(WebSocketSession session) throws IOException {
    TaskTunnel tunnel = session.get(TUNNEL, TaskTunnel.class).orElse(null);
    if (tunnel != null) {
      tunnel.close();
    }
  }

  private static void refuse(WebSocketSession session, int code, String why) {
    // A close reason is at most 123 bytes.
    String reason = why.length() > 120 ? why.substring(0, 120) : why;
    session.close(new CloseReason(code, reason));
  }
}
