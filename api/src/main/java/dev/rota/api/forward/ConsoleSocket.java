package dev.rota.api.forward;

import dev.rota.agentapi.TaskTunnel;
import io.micronaut.websocket.WebSocketSession;
import io.micronaut.websocket.annotation.OnOpen;
import io.micronaut.websocket.annotation.ServerWebSocket;

/**
 * {@code rota vm console}: a user attached to a running qemu VM's serial console, carried by {@link
 * TunnelRelay}; one user attached at a time (a second is closed with 4409).
 */
@ServerWebSocket("/v1/vms/{name}/console")
public class ConsoleSocket extends IntoVmSocket {
  public ConsoleSocket(TunnelRelay relay) {
    super(relay);
  }

  @OnOpen
  public void onOpen(String name, WebSocketSession socket) {
    relay.opened(socket, name, "console", (vm, task) -> TaskTunnel.console(task));
  }
}
