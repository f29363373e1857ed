package dev.rota.agentapi;

/** What the controller's answer to a heartbeat may say besides its status. */
public final class HeartbeatHeaders {
  /**
   * The interval, in whole seconds, the controller paces the fleet's heartbeats to: an agent beats at
   * this interval or its own, whichever is longer.
   */
  public static final String INTERVAL = "Rota-Heartbeat-Interval";

  private HeartbeatHeaders() {}
}
