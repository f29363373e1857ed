package dev.rota.api.forward;

import io.micronaut.websocket.WebSocketSession;
import io.micronaut.websocket.annotation.OnClose;
import io.micronaut.websocket.annotation.OnMessage;

/**
 * A WebSocket into a running VM, carried by {@link TunnelRelay}: each kind opens its own way in,
 * and all carry messages and closes alike.
 */
abstract class IntoVmSocket {
  protected final TunnelRelay relay;

  IntoVmSocket(TunnelRelay relay) {
    this.relay = relay;
  }

  @OnMessage
  public void onMessage(byte[] bytes, WebSocketSession socket) {
    relay.message(bytes, socket);
  }

  @OnClose
  public void onClose(WebSocketSession socket) {
    relay.closed(socket);
  }
}
