package dev.rota.api.volumes;

import dev.rota.api.JsonBodies;
import dev.rota.api.auth.RequiresRole;
import dev.rota.api.auth.Role;
import dev.rota.api.problem.ProblemAnswers;
import dev.rota.api.problem.Problems;
import dev.rota.control.DiskSweeper;
import dev.rota.store.Sql;
import dev.rota.store.VolumeRepository;
import dev.rota.store.VolumeRow;
import dev.rota.store.WorkerRepository;
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
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
  private static final Logger log = LoggerFactory.getLogger(VolumeController.class);

  private final VolumeRepository volumes;
  private final WorkerRepository workers;
  private final DiskSweeper disks;
  private final JsonBodies bodies;
  private final Clock clock;

  public VolumeController(
      VolumeRepository volumes,
      WorkerRepository workers,
      DiskSweeper disks,
      JsonBodies bodies,
      Clock clock) {
    this.volumes = volumes;
    this.workers = workers;
    this.disks = disks;
    this.bodies = bodies;
    this.clock = clock;
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
    if (request.worker() != null
        && workers
            .findById(request.worker())
            .filter(w -> w.runtimes().contains("qemu"))
            .isEmpty()) {
      throw Problems.conflict(
          "worker: no worker named " + request.worker() + " runs the qemu runtime");
    }
    try {
      volumes.create(request.name(), request.sizeGi(), request.worker(), clock.instant());
    } catch (RuntimeException e) {
      if (Sql.isUniqueViolation(e)) {
        throw Problems.conflict("volume '" + request.name() + "' already exists");
      }
      throw e;
    }
    log.info(
        "volume {} created, {} GiB{}",
        request.name(),
        request.sizeGi(),
        request.worker() == null ? "" : " on worker " + request.worker());
    return VolumeView.of(find(request.name()));
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
    VolumeRow volume = find(name);
    if (volumes.deleteIfFree(name) == 0) {
      throw Problems.conflict(
          "volume '"
              + name
              + "' is mounted by VM "
              + find(name).vm()
              + ": delete that VM first (the volume stays)");
    }
    if (volume.worker() != null) {
      disks.deleteNow(volume.worker(), volume.volumeId());
    }
    log.info("volume {} deleted", name);
  }

  private VolumeRow find(String name) {
    return volumes.findHeld(name).orElseThrow(() -> Problems.notFound("volume", name));
  }
}
