package dev.rota.api.cluster;

import dev.rota.agentapi.RotaBuild;
import dev.rota.api.ApiSettings;
import dev.rota.api.JsonBodies;
import dev.rota.api.auth.RequiresRole;
import dev.rota.api.auth.Role;
import dev.rota.api.problem.ProblemAnswers;
import dev.rota.api.problem.Problems;
import dev.rota.control.ClusterCommands;
import dev.rota.control.ControlWorkflows;
import dev.rota.control.SchedulerHealth;
import dev.rota.control.WorkflowKeeper;
import dev.rota.store.ClusterSettingsRow;
import dev.rota.store.ClusterStatusRepository;
import dev.rota.store.ClusterStatusRow;
import dev.rota.store.Count;
import dev.rota.store.VmRepository;
import dev.rota.store.WorkerRepository;
import dev.rota.workflows.cluster.ClusterWorkflow;
import dev.rota.workflows.cluster.TermSummary;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Patch;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The scheduler's state: its last term as the workflow's query tells it within a short deadline, or
 * as the database read model has it; the counts always from the database.
 */
@ProblemAnswers.Guarded
@Tag(name = "Cluster", description = "The scheduler and the cluster's settings")
@Controller("/v1/cluster")
@ExecuteOn(TaskExecutors.BLOCKING)
public class ClusterController {
  private final ClusterStatusRepository status;
  private final WorkerRepository workers;
  private final VmRepository vms;
  private final ControlWorkflows control;
  private final WorkflowKeeper keeper;
  private final Duration queryDeadline;
  private final ClusterCommands commands;
  private final JsonBodies bodies;
  private final RotaBuild build = RotaBuild.current();

  public ClusterController(
      ClusterStatusRepository status,
      WorkerRepository workers,
      VmRepository vms,
      ControlWorkflows control,
      WorkflowKeeper keeper,
      ApiSettings settings,
      ClusterCommands commands,
      JsonBodies bodies) {
    this.keeper = keeper;
    this.commands = commands;
    this.bodies = bodies;
    this.status = status;
    this.workers = workers;
    this.vms = vms;
    this.control = control;
    this.queryDeadline = settings.queryDeadline();
  }

  @RequiresRole({Role.COMPUTE_READ})
  @Get
  @Operation(operationId = "getCluster", summary = "Get the scheduler's state")
  public ClusterView get() {
    ClusterSettingsRow pause = commands.current();
    Map<String, Long> byHealth = counts(workers.countByHealth());
    Map<String, Long> byStatus = counts(vms.countByStatus());
    Optional<TermSummary> live = control.lastTerm(queryDeadline);
    ClusterStatusRow row =
        status
            .findById(ClusterWorkflow.WORKFLOW_ID)
            .orElse(new ClusterStatusRow(ClusterWorkflow.WORKFLOW_ID, 0, null, 0));
    // The workflow knows the last term that changed something; the terms after it changed nothing
    // and ran unseen by it (as its activity's attempts), so the row tells the latest term's number
    // and times.
    boolean quietSince = live.isPresent() && row.term() > live.get().term();
    boolean fromWorkflow = live.isPresent() && !quietSince;
    long term = fromWorkflow ? live.get().term() : row.term();
    Instant at =
        fromWorkflow ? Instant.ofEpochMilli(live.get().startedAtMillis()) : row.lastTermAt();
    long took = fromWorkflow ? live.get().durationMillis() : row.lastTermMillis();
    // What the last term that changed something decided: the workflow's, when it answered.
    TermSummary changed = live.orElse(null);
    SchedulerHealth health = keeper.schedulerHealth(at);
    return new ClusterView(
        ClusterWorkflow.WORKFLOW_ID,
        term,
        at,
        at == null ? null : at.plusMillis(took),
        byHealth,
        byStatus,
        live.isPresent() ? "workflow" : "database",
        changed == null || changed.decisions() == null
            ? null
            : TermDecisionsView.of(changed.decisions()),
        changed == null ? null : changed.applied(),
        health.state(),
        health.message(),
        pause.schedulingPaused(),
        pause.rejectSubmissions(),
        pause.pauseReason(),
        pause.pausedAt(),
        build.version(),
        build.commit());
  }

  @RequiresRole({Role.ADMIN_WRITE})
  @Patch
  @RequestBody(
      required = true,
      content = @Content(schema = @Schema(implementation = ClusterPatch.class)))
  @Operation(
      operationId = "patchCluster",
      summary = "Pause or resume the cluster's placements and its new submissions")
  @ProblemAnswers.Invalid
  @ProblemAnswers.Conflicting
  public ClusterView patch(@Body @Nullable String raw) {
    ClusterPatch body = bodies.read(raw, ClusterPatch.class);
    ClusterSettingsRow now = commands.current();
    boolean scheduling =
        body.schedulingPaused() == null ? now.schedulingPaused() : body.schedulingPaused();
    boolean submissions =
        body.rejectSubmissions() == null ? now.rejectSubmissions() : body.rejectSubmissions();
    boolean pausing =
        Boolean.TRUE.equals(body.schedulingPaused())
            || Boolean.TRUE.equals(body.rejectSubmissions());
    if (pausing && body.reason() == null) {
      throw Problems.badRequest("reason", "is required to pause: users are shown it");
    }
    String reason = body.reason() != null ? body.reason() : now.pauseReason();
    commands.setPause(scheduling, submissions, reason);
    return get();
  }

  private static Map<String, Long> counts(List<Count> counts) {
    Map<String, Long> map = new TreeMap<>();
    counts.forEach(c -> map.put(c.label(), c.total()));
    return map;
  }
}
