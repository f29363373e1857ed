package dev.rota.workflows.cluster;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** A fake term for the cluster workflow: remembers every term; can hold its observation open. */
final class RecordingClusterActivities implements ClusterActivities {
  private final long intervalMillis;
  private volatile long idleIntervalMillis;
  private volatile long lateByMillis;
  private final List<TermSummary> recorded = new CopyOnWriteArrayList<>();
  private volatile CountDownLatch observeGate = new CountDownLatch(0);
  private final CountDownLatch firstObserveEntered = new CountDownLatch(1);

  RecordingClusterActivities(long intervalMillis) {
    this.intervalMillis = intervalMillis;
  }

  /** Lets quiet terms stretch the wait up to this. */
  void idleInterval(long millis) {
    idleIntervalMillis = millis;
  }

  /**
   * Makes each term observe this long after the workflow asked for it, as an attempt held up would.
   */
  void observeLateBy(long millis) {
    lateByMillis = millis;
  }

  /** Makes the next observe calls wait until {@link #releaseObserve()}. */
  void holdObserve() {
    observeGate = new CountDownLatch(1);
  }

  void releaseObserve() {
    observeGate.countDown();
  }

  boolean awaitFirstObserve() throws InterruptedException {
    return firstObserveEntered.await(10, TimeUnit.SECONDS);
  }

  List<TermSummary> recorded() {
    return List.copyOf(recorded);
  }

  private TermObservation observe(TermStart start) {
    firstObserveEntered.countDown();
    try {
      if (!observeGate.await(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("observe was held and never released");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    long late = lateByMillis;
    long observedAt = late > 0 ? start.startedAtMillis() + late : System.currentTimeMillis();
    return new TermObservation(intervalMillis, observedAt, 0, 0, idleIntervalMillis);
  }

  @Override
  public TermOutcome termAndApply(TermStart start) {
    TermObservation seen = observe(start);
    TermDecisions nothing = new TermDecisions(0, 0, 0, 0, 0, 0, 0, 0, 0, List.of());
    recorded.add(
        new TermSummary(
            start.term(), start.startedAtMillis(), 0, start.woken(), nothing, ApplyResult.NOTHING));
    return new TermOutcome(seen, nothing, ApplyResult.NOTHING);
  }
}
