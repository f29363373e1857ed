package dev.rota.api.vmsets;

import dev.rota.api.JsonBodies;
import dev.rota.api.auth.Caller;
import dev.rota.api.auth.NamespaceScope;
import dev.rota.api.auth.RequiresRole;
import dev.rota.api.auth.Role;
import dev.rota.api.paging.Page;
import dev.rota.api.paging.PageRequest;
import dev.rota.api.problem.ProblemAnswers;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Delete;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Patch;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.Put;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;

/** {@code /v1/vm-sets}: N replicas of one template, each a VM of its own. */
@ProblemAnswers.Guarded
@Tag(name = "VM sets", description = "Replicas of one template, kept by their set")
@Controller("/v1/vm-sets")
@ExecuteOn(TaskExecutors.BLOCKING)
public class VmSetController {
  private final VmSetService service;
  private final JsonBodies bodies;

  public VmSetController(VmSetService service, JsonBodies bodies) {
    this.service = service;
    this.bodies = bodies;
  }

  @RequiresRole({Role.COMPUTE_WRITE})
  @NamespaceScope(NamespaceScope.From.BODY)
  @Post
  @RequestBody(
      required = true,
      content = @Content(schema = @Schema(implementation = VmSetRequest.class)))
  @Operation(operationId = "createVmSet", summary = "Create a VM set")
  @ApiResponse(
      responseCode = "201",
      description = "created: the set as stored",
      content =
          @Content(
              mediaType = "application/json",
              schema = @Schema(implementation = VmSetView.class)))
  @DryRunAnswer
  @ProblemAnswers.Invalid
  @ProblemAnswers.Conflicting
  public HttpResponse<?> create(
      HttpRequest<?> http,
      @Body @Nullable String body,
      @QueryValue @Nullable @Schema(type = "boolean", description = DRY_RUN) String dryRun) {
    VmSetRequest request = bodies.read(body, VmSetRequest.class);
    if (dryRun(dryRun)) {
      return HttpResponse.ok(service.planCreate(request));
    }
    return HttpResponse.created(service.create(request, Caller.of(http).name()));
  }

  static final String DRY_RUN = "true: answer what it would do, writing nothing";

  private static boolean dryRun(@Nullable String given) {
    return given != null && dev.rota.api.QueryValues.flag("dryRun", given);
  }

  /** The 200 a dry run answers. */
  @java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)
  @ApiResponse(
      responseCode = "200",
      description = "with dryRun: what it would do, and where new VMs would go; nothing written",
      content =
          @Content(
              mediaType = "application/json",
              schema = @Schema(implementation = dev.rota.api.plans.PlanView.class)))
  @interface DryRunAnswer {}

  @RequiresRole({Role.COMPUTE_READ})
  @NamespaceScope(NamespaceScope.From.QUERY)
  @Get
  @Operation(operationId = "listVmSets", summary = "List VM sets")
  @ProblemAnswers.Invalid
  public Page<VmSetView> list(
      @QueryValue
          @Nullable
          @Schema(
              type = "integer",
              minimum = "1",
              maximum = "1000",
              description = "items per page, 100 when not given")
          String limit,
      @QueryValue
          @Nullable
          @Schema(
              pattern = PageRequest.NUMBERED_CURSOR,
              description = "the nextCursor of the page before")
          String cursor,
      @QueryValue
          @Nullable
          @Schema(
              pattern = dev.rota.api.Names.DNS_LABEL,
              description = "only those of this namespace")
          String namespace) {
    return service.list(
        PageRequest.of(limit, cursor), dev.rota.api.namespaces.NamespaceUse.filter(namespace));
  }

  @RequiresRole({Role.COMPUTE_READ})
  @NamespaceScope(NamespaceScope.From.VM_SET)
  @Get("/{name}")
  @Operation(operationId = "getVmSet", summary = "Get a VM set")
  @ProblemAnswers.Missing
  public VmSetView get(String name) {
    return service.get(name);
  }

  @RequiresRole({Role.COMPUTE_WRITE})
  @NamespaceScope(NamespaceScope.From.VM_SET)
  @Put("/{name}")
  @RequestBody(
      required = true,
      content = @Content(schema = @Schema(implementation = VmSetRequest.class)))
  @Operation(operationId = "replaceVmSet", summary = "Replace a VM set's spec")
  @ApiResponse(
      responseCode = "200",
      description =
          "the set as stored; with dryRun, what it would do (a PlanView), nothing written",
      content =
          @Content(
              mediaType = "application/json",
              schema = @Schema(oneOf = {VmSetView.class, dev.rota.api.plans.PlanView.class})))
  @ProblemAnswers.Invalid
  @ProblemAnswers.Missing
  @ProblemAnswers.Conflicting
  public Object replace(
      HttpRequest<?> http,
      String name,
      @Body @Nullable String body,
      @QueryValue @Nullable @Schema(type = "boolean", description = DRY_RUN) String dryRun) {
    VmSetRequest request = bodies.read(body, VmSetRequest.class);
    if (dryRun(dryRun)) {
      return service.planReplace(name, request);
    }
    return service.replace(name, request, Caller.of(http).name());
  }

  @RequiresRole({Role.COMPUTE_READ})
  @NamespaceScope(NamespaceScope.From.VM_SET)
  @Get("/{name}/versions")
  @Operation(
      operationId = "listVmSetVersions",
      summary = "List the templates a VM set has had, the newest first")
  @ProblemAnswers.Missing
  public VmSetVersionsView versions(String name) {
    return service.versions(name);
  }

  @RequiresRole({Role.COMPUTE_WRITE})
  @NamespaceScope(NamespaceScope.From.VM_SET)
  @Post("/{name}/revert")
  @RequestBody(
      required = true,
      content = @Content(schema = @Schema(implementation = VmSetRevert.class)))
  @Operation(
      operationId = "revertVmSet",
      summary = "Roll a VM set back to the template of one of its versions")
  @ProblemAnswers.Invalid
  @ProblemAnswers.Missing
  @ProblemAnswers.Conflicting
  public VmSetView revert(HttpRequest<?> http, String name, @Body @Nullable String body) {
    return service.revert(name, bodies.readObject(body), Caller.of(http).name());
  }

  @RequiresRole({Role.COMPUTE_WRITE})
  @NamespaceScope(NamespaceScope.From.VM_SET)
  @Post("/{name}/promote")
  @Operation(
      operationId = "promoteVmSet",
      summary = "Promote the canaries of a VM set's rollout: it goes on to every replica")
  @ProblemAnswers.Missing
  @ProblemAnswers.Conflicting
  public VmSetView promote(String name) {
    return service.promote(name);
  }

  @RequiresRole({Role.COMPUTE_WRITE})
  @NamespaceScope(NamespaceScope.From.VM_SET)
  @Post("/{name}/rollout/pause")
  @Operation(operationId = "pauseVmSetRollout", summary = "Pause a VM set's rollouts")
  @ProblemAnswers.Missing
  @ProblemAnswers.Conflicting
  public VmSetView pauseRollout(String name) {
    return service.pauseRollouts(name, true);
  }

  @RequiresRole({Role.COMPUTE_WRITE})
  @NamespaceScope(NamespaceScope.From.VM_SET)
  @Post("/{name}/rollout/resume")
  @Operation(operationId = "resumeVmSetRollout", summary = "Resume a VM set's rollouts")
  @ProblemAnswers.Missing
  @ProblemAnswers.Conflicting
  public VmSetView resumeRollout(String name) {
    return service.pauseRollouts(name, false);
  }

  @RequiresRole({Role.COMPUTE_WRITE})
  @NamespaceScope(NamespaceScope.From.VM_SET)
  @Patch("/{name}")
  @RequestBody(
      required = true,
      content = @Content(schema = @Schema(implementation = VmSetPatch.class)))
  @Operation(operationId = "patchVmSet", summary = "Scale a VM set")
  @ProblemAnswers.Invalid
  @ProblemAnswers.Missing
  @ProblemAnswers.Conflicting
  public VmSetView patch(String name, @Body @Nullable String body) {
    return service.patch(name, bodies.readObject(body));
  }

  @RequiresRole({Role.COMPUTE_WRITE})
  @NamespaceScope(NamespaceScope.From.VM_SET)
  @Delete("/{name}")
  @Operation(operationId = "deleteVmSet", summary = "Delete a VM set and its VMs")
  @ProblemAnswers.Missing
  @ProblemAnswers.Conflicting
  @ApiResponse(
      responseCode = "202",
      description = "accepted: the change is under way; the body is the VM set as it is now",
      content =
          @Content(
              mediaType = "application/json",
              schema = @Schema(implementation = VmSetView.class)))
  public HttpResponse<VmSetView> delete(String name) {
    return HttpResponse.accepted().body(service.delete(name));
  }
}
