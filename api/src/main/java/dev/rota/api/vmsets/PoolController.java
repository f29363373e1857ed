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
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Delete;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.http.annotation.Status;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;

/**
 * {@code /v1/pools}: replicas of one template kept booted and ready, each handed out as a user's VM
 * by {@code POST /v1/vms {"name", "fromPool"}}.
 */
@ProblemAnswers.Guarded
@Tag(name = "Pools", description = "Warm pools of ready VMs, claimed as new VMs")
@Controller("/v1/pools")
@ExecuteOn(TaskExecutors.BLOCKING)
public class PoolController {
  private final PoolService service;
  private final JsonBodies bodies;

  public PoolController(PoolService service, JsonBodies bodies) {
    this.service = service;
    this.bodies = bodies;
  }

  @RequiresRole({Role.COMPUTE_WRITE})
  @NamespaceScope(NamespaceScope.From.BODY)
  @Post
  @Status(HttpStatus.CREATED)
  @RequestBody(
      required = true,
      content = @Content(schema = @Schema(implementation = PoolRequest.class)))
  @Operation(operationId = "createPool", summary = "Create a warm pool")
  @ProblemAnswers.Invalid
  @ProblemAnswers.Conflicting
  public PoolView create(HttpRequest<?> http, @Body @Nullable String body) {
    return service.create(bodies.read(body, PoolRequest.class), Caller.of(http).name());
  }

  @RequiresRole({Role.COMPUTE_READ})
  @NamespaceScope(NamespaceScope.From.QUERY)
  @Get
  @Operation(operationId = "listPools", summary = "List warm pools")
  @ProblemAnswers.Invalid
  public Page<PoolView> list(
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
  @Operation(operationId = "getPool", summary = "Get a warm pool")
  @ProblemAnswers.Missing
  public PoolView get(String name) {
    return service.get(name);
  }

  @RequiresRole({Role.COMPUTE_WRITE})
  @NamespaceScope(NamespaceScope.From.VM_SET)
  @Delete("/{name}")
  @Operation(
      operationId = "deletePool",
      summary = "Delete a warm pool and its unclaimed VMs (claimed ones stay)")
  @ProblemAnswers.Missing
  @ProblemAnswers.Conflicting
  @ApiResponse(
      responseCode = "202",
      description = "accepted: the change is under way; the body is the pool as it is now",
      content =
          @Content(
              mediaType = "application/json",
              schema = @Schema(implementation = PoolView.class)))
  public HttpResponse<PoolView> delete(String name) {
    return HttpResponse.accepted().body(service.delete(name));
  }
}
