package dev.rota.api.cluster;

import dev.rota.store.ClusterStatusRepository;
import dev.rota.workflows.cluster.ClusterWorkflow;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;

/** The scheduler's state, answered from the database read model, never by asking Temporal. */
@Controller("/v1/cluster")
@ExecuteOn(TaskExecutors.BLOCKING)
public class ClusterController {
  private final ClusterStatusRepository status;

  public ClusterController(ClusterStatusRepository status) {
    this.status = status;
  }

  @Get
  public ClusterView get() {
    return status
        .findById(ClusterWorkflow.WORKFLOW_ID)
        .map(row -> new ClusterView(row.id(), row.term(), row.lastTermAt(), row.lastTermMillis()))
        .orElse(new ClusterView(ClusterWorkflow.WORKFLOW_ID, 0, null, 0));
  }
}
