package dev.rota.activities;

import io.temporal.activity.Activity;
import io.temporal.activity.ActivityExecutionContext;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Heartbeats long activities from beside them while they run, so that Temporal notices within an
 * activity's heartbeat timeout that the host running it died, and retries it on another host, instead
 * of waiting out the whole start-to-close timeout. The beats carry no progress: they prove only that
 * the host is alive, which a step blocked on a slow agent cannot prove itself.
 */
@Singleton
public class Heartbeats implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Heartbeats.class);
  /**
   * How often a long activity beats, and how often the host's workers let the SDK send a beat
   * (TemporalWorkers): the SDK's default, 80% of the heartbeat timeout, left 1 s of slack.
   */
  public static final Duration EVERY = Duration.ofSeconds(1);

  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("rota-activity-heartbeats"));

  /** Beating for one activity; closing it stops the beats. */
  public interface Beating extends AutoCloseable {
    @Override
    void close();
  }

  /** Beats for the activity running on this thread until closed; does nothing outside an activity. */
  public Beating whileRunning() {
    ActivityExecutionContext context;
    try {
      context = Activity.getExecutionContext();
    } catch (IllegalStateException notInAnActivity) {
      return () -> {};
    }
    // The first beat after a second: a quick term (most are) sends none, and costs no Temporal action.
    ScheduledFuture<?> beating =
        timer.scheduleAtFixedRate(() -> beat(context), EVERY.toMillis(), EVERY.toMillis(), TimeUnit.MILLISECONDS);
    return () -> beating.cancel(false);
  }

  private static void beat(ActivityExecutionContext context) {
    try {
      context.heartbeat(null);
    } catch (RuntimeException e) {
      // A cancelled or timed-out activity refuses beats; its own thread learns of it when it completes.
      log.debug("heartbeat refused: {}", e.toString());
    }
  }

  @Override
  @PreDestroy
  public void close() {
    timer.shutdownNow();
  }
}
