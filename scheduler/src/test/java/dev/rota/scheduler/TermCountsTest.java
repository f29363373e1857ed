package dev.rota.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.rota.scheduler.metrics.SchedulerMetrics;
import dev.rota.scheduler.term.ActionApplier;
import dev.rota.scheduler.term.TermCommitter;
import dev.rota.scheduler.term.TermObserver;
import dev.rota.scheduler.term.TermRecorder;
import dev.rota.workflows.cluster.TermDecisions;
import dev.rota.workflows.cluster.TermObservation;
import dev.rota.workflows.cluster.TermStart;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the scheduler's counters count of a term. */
class TermCountsTest {
  @Test
  void aTermStoppedAfterItsCommitStillCountsWhatItPlaced() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    Clock clock = Clock.systemUTC();
    TermObserver observer =
        new TermObserver(null, null, null, null, null, null, clock, null, null, null, null) {
          @Override
          public TermObservation observe(Heartbeats.Beating alive, boolean checksLater) {
            return new TermObservation(5_000, clock.millis(), 3, 3);
          }
        };
    TermCommitter committer =
        new TermCommitter(null, null, null, null, null, clock) {
          @Override
          public TermDecisions commit(long observedAtMillis) {
            return new TermDecisions(3, 1, 0, 0, 0, 0, 0, 0, 4, List.of());
          }
        };
    // What a wake-up or a stale heartbeat does to the attempt once its decisions are committed:
    // the next attempt carries out the actions, and decides nothing again.
    ActionApplier stopped =
        new ActionApplier(null, null, null, null) {
          @Override
          public dev.rota.workflows.cluster.ApplyResult apply() {
            throw new IllegalStateException("Temporal no longer holds this attempt");
          }
        };
    TermRecorder recorder =
        new TermRecorder(null) {
          @Override
          public long lastTerm() {
            return 0;
          }
        };
    ClusterActivitiesImpl activities =
        new ClusterActivitiesImpl(
            observer,
            committer,
            stopped,
            recorder,
            clock,
            new Heartbeats(clock),
            new SchedulerMetrics(registry),
            new dev.rota.scheduler.temporal.QuietTermsRest(null) {
              @Override
              public boolean allowed() {
                return true;
              }
            },
            new WokenTermGap(0, System::nanoTime, nanos -> {}));
    assertThrows(
        IllegalStateException.class,
        () -> activities.termAndApply(new TermStart(1, clock.millis(), false)));
    assertEquals(3.0, registry.get("rota.placements").counter().count());
    assertEquals(1.0, registry.get("rota.moves").counter().count());
  }
}
