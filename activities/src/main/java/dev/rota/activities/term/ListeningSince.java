package dev.rota.activities.term;

import dev.rota.settings.SchedulerSettings;
import dev.rota.settings.WorkerSettings;
import dev.rota.store.ClusterStatusRepository;
import dev.rota.store.ClusterStatusRow;
import dev.rota.workflows.cluster.ClusterWorkflow;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.time.Instant;

/**
 * When the scheduler started listening again after an outage: if no term ran for longer than a worker
 * may be silent ({@code lost-after} plus an interval), every host was down or the scheduler stopped,
 * and no heartbeat could arrive; workers are then judged on what they have had a chance to say since
 * (Orchard #454: an outage longer than lost-after plus offline-after would otherwise mark every worker
 * offline and fail every VM in the first term back).
 */
@Singleton
public class ListeningSince {
  private final ClusterStatusRepository status;
  private final SchedulerSettings scheduler;
  private final WorkerSettings workers;

  public ListeningSince(ClusterStatusRepository status, SchedulerSettings scheduler, WorkerSettings workers) {
    this.status = status;
    this.scheduler = scheduler;
    this.workers = workers;
  }

  /** For the term starting {@code now}: when the scheduler came back, or null if it never was away. */
  public Instant at(Instant now) {
    String id = ClusterWorkflow.WORKFLOW_ID;
    Instant previousTerm = status.findById(id).map(ClusterStatusRow::lastTermAt).orElse(null);
    Duration away = previousTerm == null ? null : Duration.between(previousTerm, now);
    if (away == null || away.compareTo(workers.lostAfter().plus(scheduler.interval())) > 0) {
      status.markListeningSince(id, now);
      return now;
    }
    return status.findListeningSince(id).orElse(null);
  }
}
