package dev.rota.api.cluster;

import dev.rota.api.Durations;
import dev.rota.api.JsonBodies;
import dev.rota.api.auth.RequiresRole;
import dev.rota.api.auth.Role;
import dev.rota.api.problem.ProblemAnswers;
import dev.rota.api.templates.VmExpansion;
import dev.rota.control.ClusterCommands;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Put;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import io.swagger.v3.oas.annotations.tags.Tag;

@ProblemAnswers.Guarded
@Tag(name = "Cluster", description = "The scheduler and the cluster's settings")
@Controller("/v1/cluster-settings")
@ExecuteOn(TaskExecutors.BLOCKING)
public class ClusterSettingsController {
  private final ClusterCommands cluster;
  private final JsonBodies bodies;
  private final VmExpansion expansion;

  public ClusterSettingsController(
      ClusterCommands cluster, JsonBodies bodies, VmExpansion expansion) {
    this.cluster = cluster;
    this.bodies = bodies;
    this.expansion = expansion;
  }

  @RequiresRole({Role.ADMIN_READ})
  @Get
  @Operation(operationId = "getClusterSettings", summary = "Get the cluster's settings")
  public ClusterSettingsView get() {
    dev.rota.store.ClusterSettingsRow row = cluster.current();
    return new ClusterSettingsView(
        row.schedulerProfile(),
        Durations.of(row.defaultMaxRunSeconds()),
        expansion.sizes(),
        row.preemption());
  }

  @RequiresRole({Role.ADMIN_WRITE})
  @Put
  @RequestBody(
      required = true,
      content = @Content(schema = @Schema(implementation = ClusterSettingsRequest.class)))
  @Operation(
      operationId = "putClusterSettings",
      summary = "Set the scheduling profile, the default lease, the instance sizes and preemption")
  @ProblemAnswers.Invalid
  @ProblemAnswers.Conflicting
  public ClusterSettingsView put(@Body @Nullable String raw) {
    ClusterSettingsRequest body = bodies.read(raw, ClusterSettingsRequest.class);
    String sizes = expansion.storedSizes(body.instanceSizes());
    cluster.setSettings(
        body.schedulerProfile(),
        body.defaultMaxRunDuration() == null
            ? null
            : Durations.seconds("defaultMaxRunDuration", body.defaultMaxRunDuration(), false),
        sizes,
        Boolean.TRUE.equals(body.preemption()));
    return get();
  }
}
