package dev.rota.scheduler.term;

import dev.rota.scheduler.settings.WorkerSettings;
import dev.rota.store.ClusterStatusRepository;
import dev.rota.workflows.cluster.ClusterWorkflow;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.time.Instant;

/**
 * When the scheduler started listening again after an outage: if more than {@code lost-after}
 * passed between the end of the last term and this one, the scheduler was stopped (every host down,
 * perhaps, when no heartbeat could arrive either); workers are then judged on what they have had a
 * chance to say since (Orchard #454: an outage longer than lost-after plus offline-after would
 * otherwise mark every worker offline and fail every VM in the first term back). The scheduler
 * never waits that long by itself while a worker is ready: it wakes for each worker's lost
 * deadline. When it does (no worker heartbeating, an idle interval set above lost-after), the grace
 * only delays a verdict by lost-after.
 */
@Singleton
public class ListeningSince {
  private final ClusterStatusRepository status;
  private final WorkerSettings workers;

  public ListeningSince(ClusterStatusRepository status, WorkerSettings workers) {
    this.status = status;
    this.workers = workers;
  }

  /**
   * For the term that started observing at {@code now}: when the scheduler came back, or null if it
   * never was away. The term's own probes are since then: an agent answering one has spoken.
   */
  public Instant at(Instant now) {
    String id = ClusterWorkflow.WORKFLOW_ID;
    Instant previousEnd =
        status
            .findById(id)
            .filter(row -> row.lastTermAt() != null)
            .map(row -> row.lastTermAt().plusMillis(row.lastTermMillis()))
            .orElse(null);
    if (previousEnd == null
        || Duration.between(previousEnd, now).compareTo(workers.lostAfter()) > 0) {
      status.markListeningSince(id, now);
      return now;
    }
    return status.findListeningSince(id).orElse(null);
  }
}
