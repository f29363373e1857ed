package dev.rota.scheduler;

import dev.rota.workflows.ActivityDefaults;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.client.ActivityCanceledException;
import io.temporal.client.ActivityCompletionException;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Heartbeats long activities from beside them while they run, so that Temporal notices within an
 * activity's heartbeat timeout that the host running it died, and retries it on another host,
 * instead of waiting out the whole start-to-close timeout. The beats carry no progress: they prove
 * only that the host is alive, which a step blocked on a slow agent cannot prove itself.
 */
@Singleton
public class Heartbeats implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Heartbeats.class);

  /**
   * How often a long activity beats, and how often the host's workers let the SDK send a beat
   * (TemporalWorkers): the SDK's default, 80% of the heartbeat timeout, left 1 s of slack.
   */
  public static final Duration EVERY = Duration.ofSeconds(1);

  /**
   * A gap between beats this long, or a heartbeat Temporal refused, means Temporal may have given
   * the activity's attempt to another host (the heartbeat timeout is 5 s): the host was paused
   * (SIGSTOP, a long GC pause) or starved, and what it read before is stale.
   */
  static final Duration STALE_AFTER = ActivityDefaults.HEARTBEAT_TIMEOUT.minus(EVERY);

  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("rota-activity-heartbeats"));
  private final Clock clock;

  public Heartbeats(Clock clock) {
    this.clock = clock;
  }

  /** Beating for one activity; closing it stops the beats. */
  public interface Beating extends AutoCloseable {
    @Override
    void close();

    /**
     * Throws {@link Stale} when the activity may no longer be the current attempt: a write phase
     * asks first, {@code before} naming it, so that a term woken from a pause writes nothing.
     */
    default void stillCurrent(String before) {}

    /**
     * Like {@link #stillCurrent} but for the writes after a commit: a cancel (a wake-up) does not
     * stop them. The committed decisions are the store's; carried out now, they are not left for
     * the next attempt to find and carry out later.
     */
    default void stillOurs(String before) {}

    /**
     * Asks Temporal whether the activity is still wanted; throws {@link
     * io.temporal.client.ActivityCanceledException} when its workflow cancelled it. The SDK sends
     * at most one beat per interval: a cancel that came after the last one sent is heard at the
     * next attempt.
     */
    default void stillWanted() {}
  }

  /** Why a long activity stopped before a write: its attempt may now be another host's. */
  public static final class Stale extends RuntimeException {
    Stale(String message) {
      super(message);
    }
  }

  /**
   * Beats for the activity running on this thread until closed; does nothing outside an activity.
   */
  public Beating whileRunning() {
    ActivityExecutionContext context;
    try {
      context = Activity.getExecutionContext();
    } catch (IllegalStateException notInAnActivity) {
      return () -> {};
    }
    return watching(() -> context.heartbeat(null));
  }

  /**
   * Beats with {@code heartbeat} every {@link #EVERY}, the first after one, and watches the gaps.
   */
  Beat watching(Runnable heartbeat) {
    Beat beat = new Beat(heartbeat, clock.millis());
    // The first beat after a second: a quick term (most are) sends none, and costs no Temporal
    // action.
    beat.future =
        timer.scheduleAtFixedRate(
            beat::beat, EVERY.toMillis(), EVERY.toMillis(), TimeUnit.MILLISECONDS);
    return beat;
  }

  /** One activity's beats; the tests beat it by hand. */
  final class Beat implements Beating {
    private final Runnable heartbeat;
    private volatile long lastAt;
    private volatile String lost;
    private volatile String cancelled;
    private volatile ScheduledFuture<?> future;

    Beat(Runnable heartbeat, long startedAt) {
      this.heartbeat = heartbeat;
      this.lastAt = startedAt;
    }

    void beat() {
      noteGap();
      try {
        heartbeat.run();
      } catch (ActivityCanceledException e) {
        cancelled = "its workflow cancelled it";
      } catch (ActivityCompletionException e) {
        lost = "Temporal no longer holds this attempt (" + e.getClass().getSimpleName() + ")";
      } catch (RuntimeException e) {
        log.debug("heartbeat refused: {}", e.toString());
      }
    }

    private void noteGap() {
      long now = clock.millis();
      long gap = now - lastAt;
      lastAt = now;
      if (gap > STALE_AFTER.toMillis() && lost == null) {
        lost =
            "its host was paused or starved for "
                + gap
                + " ms, past the point where Temporal may have given "
                + "the attempt to another host";
      }
    }

    @Override
    public void stillCurrent(String before) {
      stillOurs(before);
      if (cancelled != null) {
        throw new Stale("stopped before " + before + ": " + cancelled);
      }
    }

    @Override
    public void stillOurs(String before) {
      noteGap();
      if (lost != null) {
        throw new Stale("stopped before " + before + ": " + lost);
      }
    }

    /** One beat now, its refusal (the activity cancelled) thrown to the caller. */
    @Override
    public void stillWanted() {
      heartbeat.run();
    }

    @Override
    public void close() {
      if (future != null) {
        future.cancel(false);
      }
    }
  }

  @Override
  @PreDestroy
  public void close() {
    timer.shutdownNow();
  }
}
