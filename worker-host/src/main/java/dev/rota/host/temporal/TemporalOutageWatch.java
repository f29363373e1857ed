package dev.rota.host.temporal;

import dev.rota.scheduler.DaemonThreads;
import dev.rota.scheduler.temporal.TemporalFrontend;
import io.temporal.serviceclient.WorkflowServiceStubs;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the Temporal frontend so that this host takes up its work as soon as Temporal is back
 * from an outage. While it does not answer, the watch asks the channel to reconnect at once on each
 * look (gRPC otherwise waits out a growing back-off of its own); once it answers again, the host's
 * workers get new pollers ({@link TemporalWorkers#renewPollers()}), for the SDK's would go on
 * waiting out theirs.
 */
@Singleton
public class TemporalOutageWatch implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TemporalOutageWatch.class);

  /** How often the frontend is asked while it answers: an outage is noticed within this. */
  public static final Duration EVERY = Duration.ofSeconds(1);

  /** How often while it does not: the return is noticed within this. */
  static final Duration EVERY_WHILE_AWAY = Duration.ofMillis(250);

  private final Supplier<String> probe;
  private final Runnable reconnect;
  private final Runnable renewPollers;
  private final Clock clock;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("rota-temporal-watch"));
  private volatile Instant awaySince;

  @Inject
  public TemporalOutageWatch(
      WorkflowServiceStubs stubs, TemporalFrontend frontend, TemporalWorkers workers, Clock clock) {
    this(
        () -> frontend.ask().whyNot(),
        () -> stubs.getRawChannel().resetConnectBackoff(),
        workers::renewPollers,
        clock);
  }

  /**
   * @param probe null when Temporal answers, otherwise why not
   * @param reconnect asks the channel to connect again now
   * @param renewPollers gives the host's workers new pollers
   */
  TemporalOutageWatch(
      Supplier<String> probe, Runnable reconnect, Runnable renewPollers, Clock clock) {
    this.probe = probe;
    this.reconnect = reconnect;
    this.renewPollers = renewPollers;
    this.clock = clock;
  }

  /**
   * Looks from now on, every {@link #EVERY} while Temporal answers and more often while it does
   * not.
   */
  public void start() {
    timer.schedule(this::lookAndGoOn, EVERY.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void lookAndGoOn() {
    try {
      look();
    } catch (RuntimeException e) {
      log.debug("looking at Temporal failed: {}", e.toString());
    } finally {
      Duration next = awaySince == null ? EVERY : EVERY_WHILE_AWAY;
      if (!timer.isShutdown()) {
        timer.schedule(this::lookAndGoOn, next.toMillis(), TimeUnit.MILLISECONDS);
      }
    }
  }

  /** One look; true when Temporal answers. */
  boolean look() {
    String why = probe.get();
    if (why != null) {
      if (awaySince == null) {
        awaySince = clock.instant();
        log.warn(
            "Temporal does not answer ({}); this host takes up its work again as soon as it does",
            why);
      }
      reconnect.run();
      return false;
    }
    Instant since = awaySince;
    if (since != null) {
      awaySince = null;
      log.info(
          "Temporal answers again after {} ms: this host polls for its tasks afresh",
          Duration.between(since, clock.instant()).toMillis());
      renewPollers.run();
    }
    return true;
  }

  @Override
  @PreDestroy
  public void close() {
    timer.shutdownNow();
  }
}
