package dev.rota.api.forward;

import dev.rota.agentapi.TaskTunnel;
import io.micronaut.websocket.WebSocketSession;
import io.micronaut.websocket.annotation.OnOpen;
import io.micronaut.websocket.annotation.ServerWebSocket;
import java.util.List;

/**
 * {@code rota vm exec}: a command ({@code ?command=...}, one parameter per word) run in a running
 * VM, carried by {@link TunnelRelay}. What the client sends is its stdin; what comes back is its
 * output and exit code in exec frames ({@link dev.rota.agentapi.ExecFrames}).
 */
@ServerWebSocket("/v1/vms/{name}/exec")
public class ExecSocket extends IntoVmSocket {
  public ExecSocket(TunnelRelay relay) {
    super(relay);
  }

  @OnOpen
  public void onOpen(String name, WebSocketSession socket) {
    List<String> command = socket.getRequestParameters().getAll("command");
    relay.opened(
        socket,
        name,
        "exec",
        (vm, task) -> {
          if (command.isEmpty()) {
            throw new TunnelRelay.Refused(4400, "exec needs a command: ?command=...&command=...");
          }
          return TaskTunnel.exec(task, command);
        });
  }
}
