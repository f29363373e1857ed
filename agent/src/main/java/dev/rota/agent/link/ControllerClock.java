package dev.rota.agent.link;

import java.time.Clock;
import java.util.OptionalLong;

/**
 * The controller's clock as this agent estimates it, from the time each heartbeat's answer gives
 * ({@code Rota-Controller-Time}): its offset from the agent's own, taken at the middle of the call,
 * so off by at most half a call's round trip. What a start's deadline is judged by.
 */
public final class ControllerClock {
  private final Clock local;
  private volatile Long offsetMillis;

  public ControllerClock(Clock local) {
    this.local = local;
  }

  /**
   * A heartbeat sent at {@code sentAt} and answered at {@code answeredAt} (local) told {@code
   * said}.
   */
  public void heard(String said, long sentAt, long answeredAt) {
    try {
      long controller = Long.parseLong(said.strip());
      offsetMillis = controller - (sentAt + (answeredAt - sentAt) / 2);
    } catch (NumberFormatException | NullPointerException e) {
      // a controller that does not say: no estimate, and no start judged late
    }
  }

  /** The controller's time now, as far as known: empty before any heartbeat's answer told it. */
  public OptionalLong now() {
    Long offset = offsetMillis;
    return offset == null ? OptionalLong.empty() : OptionalLong.of(local.millis() + offset);
  }

  /** This agent's own clock. */
  public long localMillis() {
    return local.millis();
  }
}
