package dev.rota.core.scheduling;

import java.time.Duration;

/**
 * How often the controller asks agents to heartbeat, by the size of the fleet: every heartbeat is a
 * request and a write, and a thousand agents beating every 5 s are 200 a second, half of two cores
 * before a VM is placed. As Nomad's servers do ({@code max_heartbeats_per_second}, 50), the
 * interval stretches so that the fleet together sends at most {@code maxPerSecond}; unlike Nomad's,
 * it never stretches past a third of {@code lostAfter}, so that a worker is still lost only after
 * three beats missed in a row and failover keeps its deadlines whatever the fleet's size. An agent
 * beats at this interval or its own, whichever is longer.
 *
 * @param maxPerSecond the heartbeats a second the whole fleet is paced to
 * @param lostAfter how long a silent worker stays ready
 */
public record HeartbeatPacing(int maxPerSecond, Duration lostAfter) {
  /** Beats a worker may miss before it is lost. */
  static final int BEATS_PER_LOST_AFTER = 3;

  public HeartbeatPacing {
    if (maxPerSecond <= 0) {
      throw new IllegalArgumentException("maxPerSecond must be positive, got " + maxPerSecond);
    }
  }

  /** The interval asked of each of {@code workers} agents, in whole milliseconds. */
  public Duration interval(long workers) {
    long stretched = (workers * 1000 + maxPerSecond - 1) / maxPerSecond;
    return Duration.ofMillis(Math.min(stretched, lostAfter.toMillis() / BEATS_PER_LOST_AFTER));
  }
}
