package dev.rota.scheduler.metrics;

import dev.rota.workflows.cluster.TermDecisions;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.inject.Singleton;
import java.time.Duration;

/**
 * What the scheduler did, as Prometheus counts it: terms and how long they took, placements, moves,
 * failovers, evictions, lost races, restarts, and how long VMs took from submission to running.
 */
@Singleton
public class SchedulerMetrics {
  private final Timer termDuration;
  private final Timer submitToRunning;
  private final Counter placements;
  private final Counter moves;
  private final Counter lostRaces;
  private final Counter evictions;
  private final Counter preemptions;
  private final Counter failovers;
  private final Counter restartsAfterFailure;
  private final Counter restartsOtherwise;

  public SchedulerMetrics(MeterRegistry registry) {
    this.termDuration =
        Timer.builder("rota.term.duration")
            .description("One term: observe every agent, plan, commit, apply")
            .publishPercentileHistogram()
            .minimumExpectedValue(Duration.ofMillis(1))
            .maximumExpectedValue(Duration.ofMinutes(2))
            .register(registry);
    this.submitToRunning =
        Timer.builder("rota.vm.submit.to.running")
            .description("From a VM's submission to its first task seen running")
            .publishPercentileHistogram()
            .minimumExpectedValue(Duration.ofMillis(10))
            .maximumExpectedValue(Duration.ofHours(1))
            .register(registry);
    this.placements =
        Counter.builder("rota.placements").description("VMs placed on a worker").register(registry);
    this.moves =
        Counter.builder("rota.moves")
            .description("VMs moved: off draining workers, or to rebalance (new copy first)")
            .register(registry);
    this.lostRaces =
        Counter.builder("rota.term.lost.races")
            .description(
                "Decisions a version check refused (the API got there first); planned again next term")
            .register(registry);
    this.evictions =
        Counter.builder("rota.evictions")
            .description("VMs still on a drained worker at its deadline")
            .register(registry);
    this.preemptions =
        Counter.builder("rota.preemptions")
            .description("VMs evicted to make room for a waiting VM of higher priority")
            .register(registry);
    this.failovers =
        Counter.builder("rota.failovers")
            .description(
                "VMs placed elsewhere in the term that saw their worker go offline (also counted as placements)")
            .register(registry);
    // Both series from the start, at 0, so that a dashboard and a rate() see them before the first.
    this.restartsAfterFailure = restarts(registry, true);
    this.restartsOtherwise = restarts(registry, false);
  }

  private static Counter restarts(MeterRegistry registry, boolean afterFailure) {
    return Counter.builder("rota.vm.restarts")
        .description(
            "New generations a VM's workflow queued: after a failure, or after an end, a drain or"
                + " a request")
        .tag("after_failure", Boolean.toString(afterFailure))
        .register(registry);
  }

  /**
   * A term's decisions, once committed: counted then, as an attempt that commits and then finds its
   * heartbeat stale leaves them for the next attempt to carry out, not to decide again.
   */
  public void committed(TermDecisions decided) {
    placements.increment(decided.placed());
    moves.increment(decided.moved());
    lostRaces.increment(decided.lostRaces());
  }

  /** A term carried out and recorded, and how long it took. */
  public void term(Duration took) {
    termDuration.record(took);
  }

  public void failedOver() {
    failovers.increment();
  }

  public void evicted() {
    evictions.increment();
  }

  public void preempted() {
    preemptions.increment();
  }

  public void firstRun(Duration sinceSubmission) {
    submitToRunning.record(sinceSubmission.isNegative() ? Duration.ZERO : sinceSubmission);
  }

  /**
   * A VM's workflow queued its next generation: after a failure, or after an end, a drain or a
   * request.
   */
  public void restarted(boolean afterFailure) {
    (afterFailure ? restartsAfterFailure : restartsOtherwise).increment();
  }
}
