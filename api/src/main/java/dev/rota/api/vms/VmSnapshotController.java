package dev.rota.api.vms;

import dev.rota.api.JsonBodies;
import dev.rota.api.auth.NamespaceScope;
import dev.rota.api.auth.RequiresRole;
import dev.rota.api.auth.Role;
import dev.rota.api.problem.ProblemAnswers;
import dev.rota.control.VmSnapshots;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.Status;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import io.swagger.v3.oas.annotations.tags.Tag;

/**
 * {@code POST /v1/vms/{name}/snapshot}: a VM's persistent disk saved as an image ({@link
 * VmSnapshots}).
 */
@ProblemAnswers.Guarded
@Tag(name = "VMs")
@Controller("/v1/vms")
@ExecuteOn(TaskExecutors.BLOCKING)
public class VmSnapshotController {
  private final VmSnapshots snapshots;
  private final JsonBodies bodies;

  public VmSnapshotController(VmSnapshots snapshots, JsonBodies bodies) {
    this.snapshots = snapshots;
    this.bodies = bodies;
  }

  /**
   * What a snapshot made: the image, pinned by its digest, the sizes of its disk and of the memory
   * saved with it (0 for none), and the worker whose cache holds it.
   */
  @io.micronaut.serde.annotation.Serdeable
  public record SnapshotView(
      String image, String digest, String pinned, long bytes, long memoryBytes, String worker) {}

  @RequiresRole({Role.COMPUTE_WRITE})
  @NamespaceScope(NamespaceScope.From.VM)
  @Post("/{name}/snapshot")
  @Status(HttpStatus.CREATED)
  @RequestBody(
      required = true,
      content = @Content(schema = @Schema(implementation = SnapshotRequest.class)))
  @Operation(
      operationId = "snapshotVm",
      summary = "Save a VM's disk as an image",
      description =
          "Saves the persistent disk of a stopped, suspended or failed qemu VM, flattened with its"
              + " image, as an image pushed to the OCI registry named; answered once it is pushed."
              + " New VMs and sets start from it by that reference. With memory, a suspended VM's"
              + " saved memory goes with it: a VM started from the image, with the same CPUs,"
              + " memory and devices, goes on from where that guest was instead of booting.")
  @ProblemAnswers.Invalid
  @ProblemAnswers.Missing
  @ProblemAnswers.Conflicting
  public SnapshotView snapshot(String name, @Body @Nullable String body) {
    SnapshotRequest request = bodies.read(body, SnapshotRequest.class);
    VmSnapshots.Taken taken = snapshots.snapshot(name, request.image(), request.withMemory());
    return new SnapshotView(
        taken.made().image(),
        taken.made().digest(),
        taken.made().image() + "@" + taken.made().digest(),
        taken.made().bytes(),
        taken.made().memoryBytes(),
        taken.worker());
  }
}
