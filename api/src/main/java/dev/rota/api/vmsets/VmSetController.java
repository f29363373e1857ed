package dev.rota.api.vmsets;

import dev.rota.api.JsonBodies;
import dev.rota.api.auth.RequiresRole;
import dev.rota.api.auth.Role;
import dev.rota.api.paging.Page;
import dev.rota.api.paging.PageRequest;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Delete;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Patch;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.Put;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.http.annotation.Status;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;

/** {@code /v1/vm-sets}: N replicas of one template, each a VM of its own. */
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
  @Post
  @Status(HttpStatus.CREATED)
  @RequestBody(content = @Content(schema = @Schema(implementation = VmSetRequest.class)))
  public VmSetView create(@Body @Nullable String body) {
    return service.create(bodies.read(body, VmSetRequest.class));
  }

  @RequiresRole({Role.COMPUTE_READ})
  @Get
  public Page<VmSetView> list(@QueryValue @Nullable Integer limit, @QueryValue @Nullable String cursor) {
    return service.list(PageRequest.of(limit, cursor, "vm-sets"));
  }

  @RequiresRole({Role.COMPUTE_READ})
  @Get("/{name}")
  public VmSetView get(String name) {
    return service.get(name);
  }

  @RequiresRole({Role.COMPUTE_WRITE})
  @Put("/{name}")
  @RequestBody(content = @Content(schema = @Schema(implementation = VmSetRequest.class)))
  public VmSetView replace(String name, @Body @Nullable String body) {
    return service.replace(name, bodies.read(body, VmSetRequest.class));
  }

  @RequiresRole({Role.COMPUTE_WRITE})
  @Patch("/{name}")
  @RequestBody(content = @Content(schema = @Schema(example = "{\"replicas\": 5}")))
  public VmSetView patch(String name, @Body @Nullable String body) {
    return service.patch(name, bodies.readObject(body));
  }

  @RequiresRole({Role.COMPUTE_WRITE})
  @Delete("/{name}")
  public HttpResponse<VmSetView> delete(String name) {
    return HttpResponse.accepted().body(service.delete(name));
  }
}
