package dev.rota.api.workers;

import dev.rota.api.JsonBodies;
import dev.rota.api.auth.Caller;
import dev.rota.api.auth.RequiresRole;
import dev.rota.api.auth.Role;
import dev.rota.api.auth.WorkerScope;
import dev.rota.api.paging.LabelSelector;
import dev.rota.api.paging.PageRequest;
import dev.rota.api.problem.ProblemAnswers;
import dev.rota.api.watch.WatchStreams;
import dev.rota.control.HeartbeatAdvice;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MutableHttpResponse;
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
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.List;

/** {@code /v1/workers}: the machines that run VMs. */
@ProblemAnswers.Guarded
@Tag(
    name = "Workers",
    description = "The machines that run VMs, as their agents register and report them")
@Controller("/v1/workers")
@ExecuteOn(TaskExecutors.BLOCKING)
public class WorkerController {
  private final WorkerService service;
  private final JsonBodies bodies;
  private final WatchStreams watches;
  private final HeartbeatAdvice heartbeatAdvice;
  private final dev.rota.control.ImagePrefetches prefetches;
  private final java.time.Clock clock;

  public WorkerController(
      WorkerService service,
      JsonBodies bodies,
      WatchStreams watches,
      HeartbeatAdvice heartbeatAdvice,
      dev.rota.control.ImagePrefetches prefetches,
      java.time.Clock clock) {
    this.prefetches = prefetches;
    this.clock = clock;
    this.heartbeatAdvice = heartbeatAdvice;
    this.watches = watches;
    this.service = service;
    this.bodies = bodies;
  }

  @RequiresRole({Role.WORKER, Role.ADMIN_WRITE})
  /** Register or re-register (upsert by name): 201 when new, 200 when updated. */
  @Post
  @RequestBody(
      required = true,
      content = @Content(schema = @Schema(implementation = WorkerRequest.class)))
  @Operation(operationId = "registerWorker", summary = "Register a worker (its agent)")
  @ApiResponse(
      responseCode = "201",
      description = "registered: a worker of this name is new",
      content =
          @Content(
              mediaType = "application/json",
              schema = @Schema(implementation = WorkerView.class)))
  @ApiResponse(
      responseCode = "200",
      description = "registered again: the worker's endpoint, resources and labels updated",
      content =
          @Content(
              mediaType = "application/json",
              schema = @Schema(implementation = WorkerView.class)))
  @ProblemAnswers.Invalid
  @ProblemAnswers.Conflicting
  public HttpResponse<WorkerView> register(HttpRequest<?> http, @Body @Nullable String body) {
    WorkerRequest request = bodies.read(body, WorkerRequest.class);
    WorkerScope.require(Caller.of(http), request.name());
    WorkerService.Registration r =
        service.register(request, http.getHeaders().get(io.micronaut.http.HttpHeaders.USER_AGENT));
    return HttpResponse.<WorkerView>status(r.created() ? HttpStatus.CREATED : HttpStatus.OK)
        .body(r.worker());
  }

  /**
   * A page of workers; with {@code watch=true}, a stream of every worker and then of each change
   * (NDJSON).
   */
  @RequiresRole({Role.COMPUTE_READ})
  @Get(produces = {io.micronaut.http.MediaType.APPLICATION_JSON, WatchStreams.NDJSON})
  @Operation(operationId = "listWorkers", summary = "List workers, or watch them")
  @ProblemAnswers.Invalid
  @ProblemAnswers.Expired
  public HttpResponse<?> list(
      @QueryValue
          @Nullable
          @Schema(
              pattern = LabelSelector.PATTERN,
              description = "only those whose labels hold every key=value pair: zone=a,disk=ssd")
          String labelSelector,
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
              maxLength = PageRequest.MAX_NAME_CURSOR,
              description = "the nextCursor of the page before: the last name it listed")
          String cursor,
      @QueryValue
          @Nullable
          @Schema(
              type = "boolean",
              description = "true: a stream of every object, then of each change (NDJSON)")
          String watch,
      @QueryValue
          @Nullable
          @Schema(
              pattern = WatchStreams.RESOURCE_VERSION,
              description =
                  "watch from after this resourceVersion, which a list or a watch line gave")
          String resourceVersion,
      @QueryValue
          @Nullable
          @Schema(
              type = "integer",
              minimum = "1",
              maximum = "86400",
              description = "with watch=true: end the stream after this many seconds")
          String timeoutSeconds) {
    java.time.Duration timeout = WatchStreams.timeout(timeoutSeconds);
    WatchStreams.resourceVersion(resourceVersion);
    if (WatchStreams.requested(watch)) {
      WatchStreams.refuseFilters(null, null, null, limit, cursor, labelSelector, null);
      return HttpResponse.ok(
              watches.watch(
                  new WatchStreams.Kind<>("worker", service::all, service::view, WorkerView::name),
                  resourceVersion,
                  timeout))
          .contentType(WatchStreams.NDJSON);
    }
    return HttpResponse.ok(
        service.list(
            LabelSelector.parse("labelSelector", labelSelector), PageRequest.of(limit, cursor)));
  }

  @RequiresRole({Role.COMPUTE_READ, Role.WORKER})
  @Get("/{name}")
  @Operation(operationId = "getWorker", summary = "Get a worker")
  @ProblemAnswers.Missing
  public WorkerView get(HttpRequest<?> http, String name) {
    WorkerScope.require(Caller.of(http), name);
    return service.get(name);
  }

  @RequiresRole({Role.WORKER})
  /**
   * The agent is alive; a body, when sent, says what images it holds now and what it is fetching
   * ({@link HeartbeatRequest}). 204, or 200 with the images it should fetch ahead.
   */
  @Put("/{name}/heartbeat")
  @RequestBody(
      required = false,
      content = @Content(schema = @Schema(implementation = HeartbeatRequest.class)))
  @Operation(operationId = "heartbeat", summary = "Say a worker is alive (its agent)")
  @ProblemAnswers.Invalid
  @ProblemAnswers.Missing
  @ApiResponse(
      responseCode = "200",
      description = "taken; the images the worker should fetch ahead (prefetches it matches)",
      content = @Content(schema = @Schema(implementation = HeartbeatAnswer.class)))
  @ApiResponse(responseCode = "204", description = "taken; nothing to fetch")
  public HttpResponse<HeartbeatAnswer> heartbeat(
      HttpRequest<?> http, String name, @Body @Nullable String body) {
    WorkerScope.require(Caller.of(http), name);
    if (body == null || body.isBlank()) {
      service.heartbeat(name);
    } else {
      service.heartbeat(name, bodies.read(body, HeartbeatRequest.class));
    }
    List<String> prefetch = prefetches.wanted(name);
    MutableHttpResponse<HeartbeatAnswer> answer =
        prefetch.isEmpty()
            ? HttpResponse.noContent()
            : HttpResponse.ok(new HeartbeatAnswer(prefetch));
    // How often to beat, paced by the fleet's size: an agent beats at this or its own interval, the
    // longer.
    return answer
        .header(HeartbeatAdvice.HEADER, heartbeatAdvice.seconds())
        .header(dev.rota.agentapi.HeartbeatHeaders.FENCE_AFTER, heartbeatAdvice.fenceSeconds())
        .header(dev.rota.agentapi.HeartbeatHeaders.CONTROLLER_TIME, Long.toString(clock.millis()));
  }

  /** A heartbeat's answer when there is something to say: the images to fetch ahead. */
  @io.micronaut.serde.annotation.Serdeable
  public record HeartbeatAnswer(List<String> prefetch) {}

  @RequiresRole({Role.WORKER})
  /**
   * Task states that changed since the agent last said, so that a VM is running (or failed) as soon
   * as its agent knows; the scheduler's probes remain the check. Counts as a heartbeat.
   */
  @Put("/{name}/tasks")
  @Status(HttpStatus.NO_CONTENT)
  @RequestBody(
      required = true,
      content = @Content(schema = @Schema(implementation = TaskReportRequest.class)))
  @Operation(operationId = "reportTasks", summary = "Report a worker's tasks (its agent)")
  @ProblemAnswers.Invalid
  @ProblemAnswers.Missing
  public void reportTasks(HttpRequest<?> http, String name, @Body @Nullable String body) {
    WorkerScope.require(Caller.of(http), name);
    service.reportTasks(name, bodies.read(body, TaskReportRequest.class));
  }

  @RequiresRole({Role.COMPUTE_WRITE})
  /** Only {@code schedulingPaused} may change; any other field is a 400. */
  @Patch("/{name}")
  @RequestBody(
      required = true,
      content = @Content(schema = @Schema(implementation = WorkerPatch.class)))
  @Operation(operationId = "patchWorker", summary = "Pause or resume a worker")
  @ProblemAnswers.Invalid
  @ProblemAnswers.Missing
  @ProblemAnswers.Conflicting
  public WorkerView patch(String name, @Body @Nullable String body) {
    return service.patch(name, bodies.readObject(body));
  }

  @RequiresRole({Role.COMPUTE_WRITE})
  /**
   * Drain the worker: no new VMs; those with a restart policy move elsewhere (started there first),
   * the rest stop at the deadline (default: an hour from now). Progress shows as the worker's
   * {@code drain}.
   */
  @Post("/{name}/drain")
  @RequestBody(
      required = false,
      content = @Content(schema = @Schema(implementation = DrainRequest.class)))
  @Operation(operationId = "drainWorker", summary = "Drain a worker")
  @ProblemAnswers.Invalid
  @ProblemAnswers.Missing
  @ProblemAnswers.Conflicting
  public WorkerView drain(String name, @Body @Nullable String body) {
    return service.drain(
        name,
        body == null || body.isBlank()
            ? new DrainRequest(null)
            : bodies.read(body, DrainRequest.class));
  }

  @RequiresRole({Role.ADMIN_WRITE})
  @Delete("/{name}")
  @Status(HttpStatus.NO_CONTENT)
  @Operation(operationId = "deleteWorker", summary = "Forget a worker")
  @ProblemAnswers.Missing
  @ProblemAnswers.Conflicting
  public void delete(String name) {
    service.delete(name);
  }
}
