package dev.rota.agentapi;

/** What the controller's answer to a heartbeat may say besides its status. */
public final class HeartbeatHeaders {
  /**
   * The interval, in whole seconds, the controller paces the fleet's heartbeats to: an agent beats
   * at this interval or its own, whichever is longer.
   */
  public static final String INTERVAL = "Rota-Heartbeat-Interval";

  /**
   * The fence, in whole seconds: an agent that has heard no controller host take a heartbeat for
   * this long stops its tasks, because the controller places a silent worker's VMs elsewhere soon
   * after (its offline deadline, the worker's lost deadline later), and a VM must never run twice.
   */
  public static final String FENCE_AFTER = "Rota-Fence-After";

  /**
   * The controller's clock, in epoch milliseconds, as it answered: the agent keeps its offset from
   * its own, to judge a start's deadline ({@link TaskStarts#START_BEFORE}).
   */
  public static final String CONTROLLER_TIME = "Rota-Controller-Time";

  private HeartbeatHeaders() {}
}
