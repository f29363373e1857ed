package dev.rota.workflows.cluster;

import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Promise;
import io.temporal.workflow.TimerOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import org.slf4j.Logger;

/**
 * The term loop. Each term observes the cluster and records the term; health, placement and
 * reconciliation plug in between the two. Between terms it waits for the configured interval or a wake-up signal,
 * whichever comes first.
 */
public class ClusterWorkflowImpl implements ClusterWorkflow {
  /**
   * Continue-as-new once a run's history passes this many events even if the server has not suggested
   * it yet: the embedded test server never suggests it, and a short history keeps replay cheap.
   */
  static final int HISTORY_EVENTS_PER_RUN = 2_000;

  private static final Logger log = Workflow.getLogger(ClusterWorkflowImpl.class);

  private final ClusterActivities activities =
      Workflow.newActivityStub(
          ClusterActivities.class,
          ActivityOptions.newBuilder()
              .setStartToCloseTimeout(Duration.ofSeconds(30))
              .setRetryOptions(
                  RetryOptions.newBuilder()
                      .setInitialInterval(Duration.ofSeconds(1))
                      .setBackoffCoefficient(2)
                      .setMaximumInterval(Duration.ofSeconds(30))
                      .build())
              .build());

  private TermSummary lastTerm;
  private boolean wakeRequested;

  @Override
  public void run(ClusterState state) {
    long termsDone = state.termsDone();
    lastTerm = state.lastTerm();
    wakeRequested = wakeRequested || state.wakePending();
    while (true) {
      boolean woken = wakeRequested;
      wakeRequested = false;
      long term = termsDone + 1;
      long startedAt = Workflow.currentTimeMillis();
      TermObservation seen = activities.observe();
      TermSummary summary =
          new TermSummary(term, startedAt, Workflow.currentTimeMillis() - startedAt, woken);
      activities.recordTerm(summary);
      lastTerm = summary;
      termsDone = term;
      Workflow.setCurrentDetails(details(summary, seen.intervalMillis()));

      if (shouldContinueAsNew()) {
        // Handlers must finish first, or their work would be lost with this run.
        Workflow.await(Workflow::isEveryHandlerFinished);
        log.debug("continuing as new after term {}", term);
        Workflow.continueAsNew(new ClusterState(termsDone, lastTerm, wakeRequested));
      }
      waitForNextTerm(Duration.ofMillis(seen.intervalMillis()));
    }
  }

  @Override
  public void wake(String reason) {
    wakeRequested = true;
  }

  @Override
  public TermSummary lastTerm() {
    return lastTerm;
  }

  /** Sleeps until the interval ends or a wake-up arrives; the timer is cancelled if the wake-up wins. */
  private void waitForNextTerm(Duration interval) {
    if (wakeRequested) {
      return;
    }
    CancellationScope wait =
        Workflow.newCancellationScope(
            () -> {
              Promise<Void> timer =
                  Workflow.newTimer(interval, TimerOptions.newBuilder().setSummary("until next term").build());
              Workflow.await(() -> timer.isCompleted() || wakeRequested);
            });
    wait.run();
    wait.cancel();
  }

  private static boolean shouldContinueAsNew() {
    var info = Workflow.getInfo();
    return info.isContinueAsNewSuggested() || info.getHistoryLength() > HISTORY_EVENTS_PER_RUN;
  }

  private static String details(TermSummary s, long intervalMillis) {
    return "term " + s.term() + " done" + (s.woken() ? " (woken early)" : "") + "; next within "
        + Duration.ofMillis(intervalMillis).toMillis() + " ms or on wake-up";
  }
}
