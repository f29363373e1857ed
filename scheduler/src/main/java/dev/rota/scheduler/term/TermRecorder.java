package dev.rota.scheduler.term;

import dev.rota.store.ClusterStatusRepository;
import dev.rota.store.ClusterStatusRow;
import dev.rota.workflows.cluster.ClusterWorkflow;
import dev.rota.workflows.cluster.TermSummary;
import jakarta.inject.Singleton;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Records a finished term in the store's read model, where the API reads it. */
@Singleton
public class TermRecorder {
  private static final Logger log = LoggerFactory.getLogger(TermRecorder.class);
  private final ClusterStatusRepository status;

  public TermRecorder(ClusterStatusRepository status) {
    this.status = status;
  }

  /** The number of the last term recorded, 0 before the first. */
  public long lastTerm() {
    return status.findById(ClusterWorkflow.WORKFLOW_ID).map(ClusterStatusRow::term).orElse(0L);
  }

  public void record(TermSummary summary) {
    // Last writer wins: the row holds the last term whichever run of the workflow ran it.
    ClusterStatusRow row =
        new ClusterStatusRow(
            ClusterWorkflow.WORKFLOW_ID,
            summary.term(),
            Instant.ofEpochMilli(summary.startedAtMillis()),
            summary.durationMillis());
    log.debug(
        "term {} began {} and took {} ms", row.term(), row.lastTermAt(), row.lastTermMillis());
    if (status.existsById(row.id())) {
      status.update(row);
    } else {
      status.save(row);
    }
  }
}
