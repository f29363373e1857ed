package dev.rota.api.cluster;

import dev.rota.store.ClusterStatusRepository;
import dev.rota.store.ClusterStatusRow;
import dev.rota.store.Count;
import dev.rota.store.VmRepository;
import dev.rota.store.WorkerRepository;
import dev.rota.workflows.cluster.ClusterWorkflow;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The scheduler's state, answered from the database read model, never by asking Temporal. */
@Controller("/v1/cluster")
@ExecuteOn(TaskExecutors.BLOCKING)
public class ClusterController {
  private final ClusterStatusRepository status;
  private final WorkerRepository workers;
  private final VmRepository vms;

  public ClusterController(ClusterStatusRepository status, WorkerRepository workers, VmRepository vms) {
    this.status = status;
    this.workers = workers;
    this.vms = vms;
  }

  @Get
  public ClusterView get() {
    ClusterStatusRow row =
        status.findById(ClusterWorkflow.WORKFLOW_ID).orElse(new ClusterStatusRow(ClusterWorkflow.WORKFLOW_ID, 0, null, 0));
    return new ClusterView(
        row.id(), row.term(), row.lastTermAt(), row.lastTermMillis(), counts(workers.countByHealth()), counts(vms.countByStatus()));
  }

  private static Map<String, Long> counts(List<Count> counts) {
    Map<String, Long> map = new TreeMap<>();
    counts.forEach(c -> map.put(c.label(), c.total()));
    return map;
  }
}
