package dev.rota.api.images;

import dev.rota.api.JsonBodies;
import dev.rota.api.auth.RequiresRole;
import dev.rota.api.auth.Role;
import dev.rota.api.problem.ProblemAnswers;
import dev.rota.api.problem.Problems;
import dev.rota.control.ImagePrefetches;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpResponse;
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
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.List;
import java.util.Map;

/**
 * {@code /v1/images/prefetch}: images fetched onto workers ahead of the VMs that need them ({@link
 * ImagePrefetches}).
 */
@ProblemAnswers.Guarded
@Tag(name = "Images", description = "Images fetched onto workers before VMs need them")
@Controller("/v1/images/prefetch")
@ExecuteOn(TaskExecutors.BLOCKING)
public class ImagePrefetchController {
  private final ImagePrefetches prefetches;
  private final JsonBodies bodies;

  public ImagePrefetchController(ImagePrefetches prefetches, JsonBodies bodies) {
    this.prefetches = prefetches;
    this.bodies = bodies;
  }

  /** 201 with the prefetch; 200 with the one already asked for the same image and selector. */
  @RequiresRole(Role.COMPUTE_WRITE)
  @Post
  @RequestBody(
      required = true,
      content = @Content(schema = @Schema(implementation = ImagePrefetchRequest.class)))
  @Operation(operationId = "prefetchImage", summary = "Fetch an image onto workers ahead of VMs")
  @ApiResponse(
      responseCode = "201",
      description = "the prefetch, stored",
      content = @Content(schema = @Schema(implementation = ImagePrefetchView.class)))
  @ApiResponse(
      responseCode = "200",
      description = "the prefetch already asked for the same image and selector",
      content = @Content(schema = @Schema(implementation = ImagePrefetchView.class)))
  @ProblemAnswers.Invalid
  public HttpResponse<ImagePrefetchView> create(@Body @Nullable String body) {
    ImagePrefetchRequest request = bodies.read(body, ImagePrefetchRequest.class);
    ImagePrefetches.Created made =
        prefetches.create(
            request.image(),
            request.workerSelector() == null ? Map.of() : request.workerSelector());
    ImagePrefetchView view = ImagePrefetchView.of(made.prefetch());
    return made.created() ? HttpResponse.created(view) : HttpResponse.ok(view);
  }

  @RequiresRole(Role.COMPUTE_READ)
  @Get
  @Operation(operationId = "listImagePrefetches", summary = "List image prefetches")
  public Map<String, List<ImagePrefetchView>> list() {
    return Map.of("items", prefetches.list().stream().map(ImagePrefetchView::of).toList());
  }

  @RequiresRole(Role.COMPUTE_READ)
  @Get("/{name}")
  @Operation(operationId = "getImagePrefetch", summary = "Get an image prefetch, worker by worker")
  @ProblemAnswers.Missing
  public ImagePrefetchView get(String name) {
    return ImagePrefetchView.of(
        prefetches.get(name).orElseThrow(() -> Problems.notFound("image prefetch", name)));
  }

  /** 204; what the workers fetched stays in their caches. */
  @RequiresRole(Role.COMPUTE_WRITE)
  @Delete("/{name}")
  @Status(HttpStatus.NO_CONTENT)
  @Operation(operationId = "deleteImagePrefetch", summary = "Delete an image prefetch")
  @ProblemAnswers.Missing
  public void delete(String name) {
    if (!prefetches.delete(name)) {
      throw Problems.notFound("image prefetch", name);
    }
  }
}
