package dev.rota.workflows.cluster;

import io.temporal.activity.Activity;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/** A fake term for the cluster workflow: remembers every term; can hold its observation open. */
final class RecordingClusterActivities implements ClusterActivities {
  private final long intervalMillis;
  private volatile long idleIntervalMillis;
  private volatile long lateByMillis;
  private final List<TermSummary> recorded = new CopyOnWriteArrayList<>();
  private final List<TermStart> asked = new CopyOnWriteArrayList<>();
  private final AtomicInteger placing = new AtomicInteger();
  private final AtomicInteger losing = new AtomicInteger();
  private final AtomicInteger attempts = new AtomicInteger();
  private volatile LongSupplier clock = System::currentTimeMillis;
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

  /** Each attempt's term as the workflow, then Temporal's retry, asked for it. */
  List<TermStart> asked() {
    return List.copyOf(asked);
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
    long observedAt = late > 0 ? start.startedAtMillis() + late : clock.getAsLong();
    return new TermObservation(intervalMillis, observedAt, 0, 0, idleIntervalMillis);
  }

  /** Tells time as the test's Temporal server does, which skips ahead. */
  void clock(LongSupplier clock) {
    this.clock = clock;
  }

  /** Makes the next {@code terms} terms place a VM each: terms that change something. */
  void placeInNext(int terms) {
    placing.set(terms);
  }

  /** Makes the next {@code terms} terms lose a race each: a conditional write met newer state. */
  void loseRacesInNext(int terms) {
    losing.set(terms);
  }

  /** How many attempts of the term activity Temporal has asked for. */
  int attempts() {
    return attempts.get();
  }

  @Override
  public TermOutcome termAndApply(TermStart asked) {
    attempts.incrementAndGet();
    int attempt = Activity.getExecutionContext().getInfo().getAttempt();
    TermStart start = QuietTerms.attempt(asked, attempt, clock.getAsLong());
    this.asked.add(start);
    TermObservation seen = observe(start);
    boolean places = placing.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
    int lost = losing.getAndUpdate(n -> Math.max(0, n - 1)) > 0 ? 1 : 0;
    TermDecisions decided =
        places
            ? new TermDecisions(1, 0, 0, 0, 0, 0, lost, 0, 0, List.of("placed a VM"))
            : new TermDecisions(0, 0, 0, 0, 0, 0, lost, 0, 0, List.of());
    long last = recorded.isEmpty() ? 0 : recorded.get(recorded.size() - 1).term();
    TermSummary summary =
        new TermSummary(
            Math.max(start.term(), last + 1),
            Math.max(start.startedAtMillis(), seen.observedAtMillis()),
            0,
            start.woken(),
            decided,
            ApplyResult.NOTHING);
    recorded.add(summary);
    TermOutcome outcome = new TermOutcome(seen, decided, ApplyResult.NOTHING, summary, true);
    QuietTerms.rest(start, outcome, clock.getAsLong())
        .ifPresent(
            rest -> {
              // As the real term does: a wake-up that came while it ran is heard before it rests.
              Activity.getExecutionContext().heartbeat(null);
              throw rest;
            });
    return outcome;
  }
}
