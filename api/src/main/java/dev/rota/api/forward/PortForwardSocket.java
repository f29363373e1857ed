package dev.rota.api.forward;

import dev.rota.agentapi.PortSpec;
import dev.rota.agentapi.TaskTunnel;
import io.micronaut.websocket.WebSocketSession;
import io.micronaut.websocket.annotation.OnOpen;
import io.micronaut.websocket.annotation.ServerWebSocket;

/**
 * {@code rota vm port-forward}: a user's connection to one of a running VM's named ports, named by
 * its name or its guest port, carried by {@link TunnelRelay}.
 */
@ServerWebSocket("/v1/vms/{name}/ports/{port}/forward")
public class PortForwardSocket extends IntoVmSocket {
  public PortForwardSocket(TunnelRelay relay) {
    super(relay);
  }

  @OnOpen
  public void onOpen(String name, String port, WebSocketSession socket) {
    relay.opened(
        socket,
        name,
        "port-forward to port " + port,
        (vm, task) -> {
          PortSpec named =
              vm.spec().ports().stream()
                  .filter(p -> p.name().equals(port) || String.valueOf(p.port()).equals(port))
                  .findFirst()
                  .orElseThrow(
                      () ->
                          new TunnelRelay.Refused(
                              4404, "vm " + name + " has no port named " + port));
          return TaskTunnel.port(task, named.name());
        });
  }
}
