package dev.rota.scheduler.term;

import dev.rota.core.scheduling.Rebalancing;
import dev.rota.core.scheduling.TermPlan;
import dev.rota.core.scheduling.TermPlanner;
import dev.rota.scheduler.settings.SchedulerSettings;
import dev.rota.scheduler.settings.WorkerSettings;
import dev.rota.workflows.cluster.TermDecisions;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The plan-and-commit step: reads the store's snapshot (desired state and the agents' last answers,
 * {@link TermSnapshotReader}), lets the pure scheduling core decide ({@link TermPlanner}), and
 * writes the decisions in one transaction ({@link TermPlanWriter}).
 */
@Singleton
public class TermCommitter {
  private static final Logger log = LoggerFactory.getLogger(TermCommitter.class);

  private final TermSnapshotReader reader;
  private final TermPlanWriter writer;
  private final ListeningSince listening;
  private final WorkerSettings health;
  private final SchedulerSettings scheduler;
  private final Clock clock;

  public TermCommitter(
      TermSnapshotReader reader,
      TermPlanWriter writer,
      ListeningSince listening,
      WorkerSettings health,
      SchedulerSettings scheduler,
      Clock clock) {
    this.reader = reader;
    this.writer = writer;
    this.listening = listening;
    this.health = health;
    this.scheduler = scheduler;
    this.clock = clock;
  }

  public TermDecisions commit(long observedAtMillis) {
    long began = System.nanoTime();
    Instant now = clock.instant();
    Instant observedAt = Instant.ofEpochMilli(observedAtMillis);
    TermSnapshot snapshot = reader.read(now, observedAt);
    long read = System.nanoTime();
    TermPlan plan =
        TermPlanner.plan(
            now,
            listening.at(observedAt),
            snapshot.profile(),
            health.health(),
            snapshot.workers(),
            snapshot.vms(),
            java.util.List.copyOf(snapshot.taskRows().keySet()),
            snapshot.reported(),
            new Rebalancing(scheduler.rebalanceMovesPerTerm(), snapshot.movable()),
            snapshot.pausedBecause(),
            snapshot.preemption(),
            snapshot.quotas());
    long planned = System.nanoTime();
    TermDecisions decisions = writer.write(plan, snapshot, now);
    if (log.isDebugEnabled()) {
      log.debug(
          "read the snapshot in {} ms, planned in {} ms, wrote in {} ms",
          (read - began) / 1_000_000,
          (planned - read) / 1_000_000,
          (System.nanoTime() - planned) / 1_000_000);
    }
    return decisions;
  }
}
