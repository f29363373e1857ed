package dev.rota.api.volumes;

import dev.rota.api.JsonBodies;
import dev.rota.api.auth.RequiresRole;
import dev.rota.api.auth.Role;
import dev.rota.api.problem.ProblemAnswers;
import dev.rota.api.problem.Problems;
import dev.rota.control.VolumeCommands;
import dev.rota.store.VolumeRepository;
import dev.rota.store.VolumeRow;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Delete;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.Status;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.List;
import java.util.Map;

/**
 * {@code /v1/volumes}: data volumes, blank disks that outlive the VMs mounting them. A volume is on
 * one worker: the one named at its creation, or that of the first VM that mounts it; a VM that
 * mounts it is placed there, and it moves with that VM's disk on a drain.
 */
@ProblemAnswers.Guarded
@Tag(name = "Volumes", description = "Data volumes that outlive their VMs")
@Controller("/v1/volumes")
@ExecuteOn(TaskExecutors.BLOCKING)
public class VolumeController {
  private final VolumeRepository volumes;
  private final VolumeCommands commands;
  private final JsonBodies bodies;

  public VolumeController(VolumeRepository volumes, VolumeCommands commands, JsonBodies bodies) {
    this.volumes = volumes;
    this.commands = commands;
    this.bodies = bodies;
  }

  /** 201; the volume is made on its worker when a VM that mounts it first starts there. */
  @RequiresRole(Role.COMPUTE_WRITE)
  @Post
  @Status(HttpStatus.CREATED)
  @RequestBody(
      required = true,
      content = @Content(schema = @Schema(implementation = VolumeRequest.class)))
  @Operation(operationId = "createVolume", summary = "Create a data volume")
  @ProblemAnswers.Invalid
  @ProblemAnswers.Conflicting
  public VolumeView create(@Body @Nullable String body) {
    VolumeRequest request = bodies.read(body, VolumeRequest.class);
    return VolumeView.of(commands.create(request.name(), request.sizeGi(), request.worker()));
  }

  @RequiresRole(Role.COMPUTE_READ)
  @Get
  @Operation(operationId = "listVolumes", summary = "List data volumes, by name")
  public Map<String, List<VolumeView>> list() {
    return Map.of("items", volumes.listHeld().stream().map(VolumeView::of).toList());
  }

  @RequiresRole(Role.COMPUTE_READ)
  @Get("/{name}")
  @Operation(operationId = "getVolume", summary = "Get a data volume")
  @ProblemAnswers.Missing
  public VolumeView get(String name) {
    return VolumeView.of(find(name));
  }

  /** 204, its data deleted on its worker; 409 while a VM mounts it. */
  @RequiresRole(Role.COMPUTE_WRITE)
  @Delete("/{name}")
  @Status(HttpStatus.NO_CONTENT)
  @Operation(operationId = "deleteVolume", summary = "Delete a data volume no VM mounts")
  @ProblemAnswers.Missing
  @ProblemAnswers.Conflicting
  public void delete(String name) {
    commands.delete(name);
  }

  private VolumeRow find(String name) {
    return volumes.findHeld(name).orElseThrow(() -> Problems.notFound("volume", name));
  }
}
