package dev.rota.control;

import dev.rota.core.scheduling.HeartbeatPacing;
import dev.rota.scheduler.settings.WorkerSettings;
import dev.rota.store.WorkerRepository;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;

/**
 * The interval a heartbeat's answer asks the agent to beat at ({@link #HEADER}), paced by the size
 * of the fleet ({@link HeartbeatPacing}). The fleet is counted at most every {@link #RECOUNT}, not
 * on every heartbeat.
 */
@Singleton
public class HeartbeatAdvice {
  public static final String HEADER = dev.rota.agentapi.HeartbeatHeaders.INTERVAL;
  static final Duration RECOUNT = Duration.ofSeconds(10);

  private record Count(long workers, long atMillis) {}

  private final WorkerRepository workers;
  private final HeartbeatPacing pacing;
  private final String fenceSeconds;
  private final Clock clock;
  private volatile Count count;

  public HeartbeatAdvice(WorkerRepository workers, WorkerSettings settings, Clock clock) {
    this.workers = workers;
    this.pacing = settings.heartbeatPacing();
    this.fenceSeconds = Long.toString(settings.fenceAfter().toSeconds());
    this.clock = clock;
  }

  /**
   * The header's value: the paced interval in whole seconds, rounded down (never past lost-after /
   * 3), at least 1.
   */
  public String seconds() {
    return Long.toString(Math.max(1, pacing.interval(fleet()).toSeconds()));
  }

  /**
   * {@link dev.rota.agentapi.HeartbeatHeaders#FENCE_AFTER}'s value: {@link
   * WorkerSettings#fenceAfter()} in whole seconds.
   */
  public String fenceSeconds() {
    return fenceSeconds;
  }

  private long fleet() {
    Count c = count;
    long now = clock.millis();
    if (c == null || now - c.atMillis() >= RECOUNT.toMillis() || now < c.atMillis()) {
      try {
        // Two heartbeats may count at once; either count will do.
        c = new Count(workers.count(), now);
        count = c;
      } catch (RuntimeException e) {
        // The heartbeat is stored already: a count that failed must not fail it; the last one will
        // do.
        return c == null ? 0 : c.workers();
      }
    }
    return c.workers();
  }
}
