package dev.rota.api.vms;

import dev.rota.agentapi.LogHeaders;
import dev.rota.agentapi.LogQuery;
import dev.rota.api.JsonBodies;
import dev.rota.api.QueryValues;
import dev.rota.api.auth.Caller;
import dev.rota.api.auth.NamespaceScope;
import dev.rota.api.auth.RequiresRole;
import dev.rota.api.auth.Role;
import dev.rota.api.auth.WorkerScope;
import dev.rota.api.paging.LabelSelector;
import dev.rota.api.paging.Page;
import dev.rota.api.paging.PageRequest;
import dev.rota.api.problem.ProblemAnswers;
import dev.rota.api.problem.Problems;
import dev.rota.api.watch.WatchStreams;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Delete;
import io.micronaut.http.annotation.Get;
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
import java.util.Map;

/** {@code /v1/vms}: what users submit. */
@ProblemAnswers.Guarded
@Tag(name = "VMs", description = "A VM's spec, lifecycle, actions, events and output")
@Controller("/v1/vms")
@ExecuteOn(TaskExecutors.BLOCKING)
public class VmController {
  private final VmService service;
  private final JsonBodies bodies;

  private final VmLogs logs;
  private final WatchStreams watches;
  private final dev.rota.api.plans.Plans plans;

  public VmController(
      VmService service,
      JsonBodies bodies,
      VmLogs logs,
      WatchStreams watches,
      dev.rota.api.plans.Plans plans) {
    this.watches = watches;
    this.plans = plans;
    this.service = service;
    this.logs = logs;
    this.bodies = bodies;
  }

  @RequiresRole({Role.COMPUTE_WRITE})
  @NamespaceScope(NamespaceScope.From.BODY)
  @Post
  @RequestBody(
      required = true,
      content = @Content(schema = @Schema(implementation = VmRequest.class)))
  @Operation(operationId = "createVm", summary = "Submit a VM")
  @ApiResponse(
      responseCode = "201",
      description = "submitted: the VM as stored",
      content =
          @Content(mediaType = "application/json", schema = @Schema(implementation = VmView.class)))
  @ApiResponse(
      responseCode = "200",
      description = "with dryRun: what it would do and where the VM would go; nothing written",
      content =
          @Content(
              mediaType = "application/json",
              schema = @Schema(implementation = dev.rota.api.plans.PlanView.class)))
  @ProblemAnswers.Invalid
  @ProblemAnswers.Missing
  @ProblemAnswers.Conflicting
  public HttpResponse<?> create(
      @Body @Nullable String body,
      @QueryValue
          @Nullable
          @Schema(type = "boolean", description = "true: answer what it would do, writing nothing")
          String dryRun) {
    if (body != null && body.contains("\"fromPool\"")) {
      onlyNameWithPool(bodies.readObject(body));
    }
    VmRequest request = bodies.read(body, VmRequest.class);
    if (dryRun != null && QueryValues.flag("dryRun", dryRun)) {
      return HttpResponse.ok(plans.vm(request.name(), service.plan(request)));
    }
    return HttpResponse.created(service.create(request));
  }

  /**
   * A claim from a pool names the VM and the pool, and at most user data for its guest, nothing
   * else, not even what a VM's view shows (which a create otherwise takes back and ignores): the
   * pool's template is the VM's spec.
   */
  private static void onlyNameWithPool(Map<String, Object> body) {
    if (body.get("fromPool") == null) {
      return;
    }
    for (String field : new java.util.TreeSet<>(body.keySet())) {
      if (field.equals("guest") && body.get(field) instanceof Map<?, ?> guest) {
        for (Object inGuest :
            new java.util.TreeSet<>(guest.keySet().stream().map(String::valueOf).toList())) {
          if (!inGuest.equals("userData")) {
            throw notWithPool("guest." + inGuest);
          }
        }
      } else if (!field.equals("name") && !field.equals("fromPool")) {
        throw notWithPool(field);
      }
    }
  }

  private static RuntimeException notWithPool(String field) {
    return dev.rota.api.problem.Problems.badRequest(
        field,
        "cannot be given with fromPool: the VM is made from the pool's template"
            + " (a claim takes guest.userData alone)");
  }

  /**
   * Up to {@link VmBatch#MAX_ITEMS} VMs in one request, all or none: what a client submitting many
   * pays once instead of per VM (a request, a transaction, a wake-up of the scheduler), each VM
   * still with a workflow of its own.
   */
  @RequiresRole({Role.COMPUTE_WRITE})
  @NamespaceScope(NamespaceScope.From.BODY)
  @Post("/batch")
  @Status(HttpStatus.CREATED)
  @RequestBody(
      required = true,
      content = @Content(schema = @Schema(implementation = VmBatch.Request.class)))
  @Operation(operationId = "createVms", summary = "Submit many VMs, all or none")
  @ProblemAnswers.Invalid
  @ProblemAnswers.Conflicting
  public VmBatch createAll(@Body @Nullable String body) {
    Map<String, Object> batch = bodies.readObject(body);
    batch.keySet().stream()
        .filter(field -> !field.equals("items"))
        .sorted()
        .findFirst()
        .ifPresent(
            field -> {
              throw Problems.badRequest(
                  field, "is not a field of this request; it has items alone");
            });
    Object items = batch.get("items");
    if (!(items instanceof List<?> list) || list.isEmpty() || list.size() > VmBatch.MAX_ITEMS) {
      throw Problems.badRequest(
          "items",
          "is required: a list of 1 to " + VmBatch.MAX_ITEMS + " VMs as POST /v1/vms takes them");
    }
    List<VmRequest> requests = new java.util.ArrayList<>(list.size());
    for (int i = 0; i < list.size(); i++) {
      requests.add(bodies.readPart("items[" + i + "]", list.get(i), VmRequest.class));
    }
    return new VmBatch(service.createAll(requests));
  }

  /**
   * A page of VMs; with {@code watch=true}, a stream of every VM and then of each change as NDJSON
   * ({@link WatchStreams}), from {@code resourceVersion} when given.
   */
  @RequiresRole({Role.COMPUTE_READ, Role.WORKER})
  @NamespaceScope(NamespaceScope.From.QUERY)
  @Get(produces = {MediaType.APPLICATION_JSON, WatchStreams.NDJSON})
  @Operation(operationId = "listVms", summary = "List VMs, or watch them")
  @ProblemAnswers.Invalid
  @ProblemAnswers.Expired
  public HttpResponse<?> list(
      HttpRequest<?> http,
      @QueryValue
          @Nullable
          @Schema(
              allowableValues = {
                "pending",
                "scheduled",
                "running",
                "stopping",
                "stopped",
                "failed",
                "suspending",
                "suspended",
                "paused"
              })
          String status,
      @QueryValue @Nullable String worker,
      @QueryValue @Nullable String set,
      @QueryValue
          @Nullable
          @Schema(
              pattern = dev.rota.api.Names.DNS_LABEL,
              description = "only those of this namespace")
          String namespace,
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
              pattern = PageRequest.NUMBERED_CURSOR,
              description = "the nextCursor of the page before")
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
    Caller caller = Caller.of(http);
    java.time.Duration timeout = WatchStreams.timeout(timeoutSeconds);
    WatchStreams.resourceVersion(resourceVersion);
    if (WatchStreams.requested(watch)) {
      WatchStreams.refuseFilters(status, worker, set, limit, cursor, labelSelector, namespace);
      if (caller.workerOnly()) {
        throw new io.micronaut.http.exceptions.HttpStatusException(
            HttpStatus.FORBIDDEN, "a worker token cannot watch every VM");
      }
      return HttpResponse.ok(
              watches.watch(
                  new WatchStreams.Kind<>("vm", service::all, service::view, VmView::name),
                  resourceVersion,
                  timeout))
          .contentType(WatchStreams.NDJSON);
    }
    if (caller.workerOnly()) {
      // A worker token reads its own assignments only.
      WorkerScope.require(caller, worker == null ? "" : worker);
    }
    return HttpResponse.ok(
        service.list(
            status,
            worker,
            set,
            dev.rota.api.namespaces.NamespaceUse.filter(namespace),
            LabelSelector.parse("labelSelector", labelSelector),
            PageRequest.of(limit, cursor)));
  }

  @RequiresRole({Role.COMPUTE_READ})
  @NamespaceScope(NamespaceScope.From.VM)
  @Get("/{name}")
  @Operation(operationId = "getVm", summary = "Get a VM")
  @ProblemAnswers.Missing
  public VmView get(String name) {
    return service.get(name);
  }

  /**
   * What the VM's task wrote to stdout ({@code stream=stderr}: stderr), as plain text, kept after
   * the task ends until the VM is deleted; {@code previous} reads the generation before. The answer
   * says where it ended ({@code Rota-Log-Next}) and whether the task may write more ({@code
   * Rota-Log-Live}): a follower asks {@code from} that offset, with {@code waitSeconds}, and loses
   * nothing the worker keeps. {@code follow=true} holds the answer open instead, streaming what the
   * task writes until it ends; {@code Rota-Log-From} says at which offset the stream began, so that
   * a client whose stream broke follows again from where it got to.
   */
  @RequiresRole({Role.COMPUTE_READ})
  @NamespaceScope(NamespaceScope.From.VM)
  @Get(value = "/{name}/logs", produces = MediaType.TEXT_PLAIN)
  @Operation(operationId = "getVmLogs", summary = "Get a VM's output")
  @ApiResponse(
      responseCode = "200",
      description = "The output, as plain text",
      headers = {
        @io.swagger.v3.oas.annotations.headers.Header(
            name = LogHeaders.NEXT,
            description = "The offset just past the bytes returned: where a follower reads next",
            schema = @Schema(type = "integer", format = "int64")),
        @io.swagger.v3.oas.annotations.headers.Header(
            name = LogHeaders.LIVE,
            description = "true while the task may still write",
            schema = @Schema(type = "boolean")),
        @io.swagger.v3.oas.annotations.headers.Header(
            name = FROM_HEADER,
            description = "With follow=true: the offset of the stream's first byte",
            schema = @Schema(type = "integer", format = "int64")),
        @io.swagger.v3.oas.annotations.headers.Header(
            name = TASK_HEADER,
            description = "The task whose output this is (vm.generation)",
            schema = @Schema(type = "string"))
      },
      content = @Content(mediaType = MediaType.TEXT_PLAIN, schema = @Schema(type = "string")))
  @ProblemAnswers.Invalid
  @ProblemAnswers.Missing
  @ProblemAnswers.Conflicting
  @ProblemAnswers.AgentFailed
  public HttpResponse<?> logs(
      String name,
      @QueryValue
          @Nullable
          @Schema(
              allowableValues = {"stdout", "stderr"},
              description = "stdout when not given")
          String stream,
      @QueryValue
          @Nullable
          @Schema(type = "boolean", description = "the generation before the current one")
          String previous,
      @QueryValue
          @Nullable
          @Schema(
              type = "integer",
              minimum = "0",
              maximum = "999999999",
              description = "only the last lines")
          String tailLines,
      @QueryValue
          @Nullable
          @Schema(
              format = "date-time",
              pattern = dev.rota.api.Rfc3339.PATTERN,
              description = "only what was written after this time")
          String since,
      @QueryValue
          @Nullable
          @Schema(
              type = "integer",
              format = "int64",
              minimum = "0",
              maximum = "999999999999999999",
              description = "from this offset: the Rota-Log-Next of an earlier read")
          String from,
      @QueryValue
          @Nullable
          @Schema(
              type = "integer",
              minimum = "0",
              maximum = "60",
              description = "with from, how long to wait for more when there is nothing new")
          String waitSeconds,
      @QueryValue
          @Nullable
          @Schema(
              type = "boolean",
              description = "stream what the task writes, until it ends (or timeoutSeconds)")
          String follow,
      @QueryValue
          @Nullable
          @Schema(
              type = "integer",
              minimum = "1",
              maximum = "86400",
              description = "with follow=true: end the stream after this many seconds")
          String timeoutSeconds) {
    String which = stream == null ? "stdout" : stream;
    if (!LogQuery.STREAMS.contains(which)) {
      throw Problems.badRequest("stream", "must be stdout or stderr, got " + which);
    }
    LogQuery query =
        new LogQuery(
            which,
            from == null ? null : QueryValues.offset("from", from),
            since == null ? null : QueryValues.time("since", since),
            tailLines == null
                ? null
                : QueryValues.wholeNumber("tailLines", tailLines, 0, 999_999_999));
    int wait =
        waitSeconds == null
            ? 0
            : QueryValues.wholeNumber("waitSeconds", waitSeconds, 0, VmLogs.MAX_WAIT_SECONDS);
    boolean before = previous != null && QueryValues.flag("previous", previous);
    java.time.Duration timeout = WatchStreams.timeout(timeoutSeconds);
    if (follow != null && QueryValues.flag("follow", follow)) {
      if (waitSeconds != null) {
        throw Problems.badRequest(
            "waitSeconds", "does not go with follow=true, which waits itself");
      }
      VmLogs.Followed followed = logs.follow(name, query, before);
      return HttpResponse.ok(WatchStreams.lasting(followed.bytes(), timeout))
          .contentType(MediaType.TEXT_PLAIN_TYPE)
          .header(FROM_HEADER, Long.toString(followed.from()))
          .header(TASK_HEADER, followed.taskId());
    }
    VmLogs.Read read = logs.read(name, query, before, java.time.Duration.ofSeconds(wait));
    return HttpResponse.ok(read.chunk().bytes())
        .contentType(MediaType.TEXT_PLAIN_TYPE)
        .header(LogHeaders.NEXT, Long.toString(read.chunk().next()))
        .header(LogHeaders.LIVE, Boolean.toString(read.chunk().live()))
        .header(TASK_HEADER, read.taskId());
  }

  /** The task a log answer is of. */
  static final String TASK_HEADER = "Rota-Log-Task";

  /** Where a followed log's stream began. */
  static final String FROM_HEADER = "Rota-Log-From";

  @RequiresRole({Role.COMPUTE_READ})
  @NamespaceScope(NamespaceScope.From.VM)
  @Get("/{name}/events")
  @Operation(operationId = "listVmEvents", summary = "List a VM's events")
  @ProblemAnswers.Invalid
  @ProblemAnswers.Missing
  public Page<VmEventView> events(
      String name,
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
          String cursor) {
    return service.events(name, PageRequest.of(limit, cursor));
  }

  @RequiresRole({Role.COMPUTE_WRITE})
  @NamespaceScope(NamespaceScope.From.VM)
  @Post("/{name}/stop")
  @Operation(operationId = "stopVm", summary = "Stop a VM")
  @ProblemAnswers.Missing
  @ProblemAnswers.Conflicting
  @ApiResponse(
      responseCode = "202",
      description = "accepted: the change is under way; the body is the VM as it is now",
      content =
          @Content(mediaType = "application/json", schema = @Schema(implementation = VmView.class)))
  public HttpResponse<VmView> stop(String name) {
    return HttpResponse.accepted().body(service.stop(name));
  }

  @RequiresRole({Role.COMPUTE_WRITE})
  @NamespaceScope(NamespaceScope.From.VM)
  @Post("/{name}/suspend")
  @Operation(
      operationId = "suspendVm",
      summary = "Suspend a VM",
      description =
          "Saves the running VM's memory and device state on its worker, beside its disk, and ends"
              + " its QEMU: the VM is suspended and holds none of the worker's CPU or memory. A"
              + " start resumes it there, where it was, once the worker has room; a stop drops the"
              + " saved memory. Only a qemu VM with a persistent disk, or booted from a kernel"
              + " without a disk, and not a set's replica, can be suspended (409 otherwise). If"
              + " its agent cannot save the memory, the VM runs on and its events say why. With"
              + " inPlace=true the guest is paused where it runs instead (status paused): its"
              + " QEMU, memory and room on its worker are kept, any qemu VM but a set's replica can"
              + " be, and a start runs it on at once.")
  @ProblemAnswers.Invalid
  @ProblemAnswers.Missing
  @ProblemAnswers.Conflicting
  @ApiResponse(
      responseCode = "202",
      description = "accepted: the change is under way; the body is the VM as it is now",
      content =
          @Content(mediaType = "application/json", schema = @Schema(implementation = VmView.class)))
  public HttpResponse<VmView> suspend(
      String name,
      @QueryValue
          @Nullable
          @Schema(description = "pause the guest where it runs, its QEMU and room kept")
          Boolean inPlace) {
    return HttpResponse.accepted().body(service.suspend(name, Boolean.TRUE.equals(inPlace)));
  }

  @RequiresRole({Role.COMPUTE_WRITE})
  @NamespaceScope(NamespaceScope.From.VM)
  @Post("/{name}/start")
  @Operation(operationId = "startVm", summary = "Start a stopped VM, or resume a suspended one")
  @ProblemAnswers.Missing
  @ProblemAnswers.Conflicting
  @ApiResponse(
      responseCode = "202",
      description = "accepted: the change is under way; the body is the VM as it is now",
      content =
          @Content(mediaType = "application/json", schema = @Schema(implementation = VmView.class)))
  public HttpResponse<VmView> start(String name) {
    return HttpResponse.accepted().body(service.start(name));
  }

  @RequiresRole({Role.COMPUTE_WRITE})
  @NamespaceScope(NamespaceScope.From.VM)
  @Post("/{name}/restart")
  @Operation(operationId = "restartVm", summary = "Restart a VM")
  @ProblemAnswers.Missing
  @ProblemAnswers.Conflicting
  @ApiResponse(
      responseCode = "202",
      description = "accepted: the change is under way; the body is the VM as it is now",
      content =
          @Content(mediaType = "application/json", schema = @Schema(implementation = VmView.class)))
  public HttpResponse<VmView> restart(String name) {
    return HttpResponse.accepted().body(service.restart(name));
  }

  @RequiresRole({Role.COMPUTE_WRITE})
  @NamespaceScope(NamespaceScope.From.VM)
  @Put("/{name}/lease")
  @RequestBody(
      required = true,
      content = @Content(schema = @Schema(implementation = LeaseRequest.class)))
  @Operation(
      operationId = "extendVmLease",
      summary = "Extend a VM's lease",
      description =
          "Moves the end of the lease under way (maxRunDuration, counted from when the VM first"
              + " ran) later by extendBy. A VM without maxRunDuration, not yet run, or stopped has"
              + " none to extend (409); a start after a stop begins a new lease.")
  @ProblemAnswers.Invalid
  @ProblemAnswers.Missing
  @ProblemAnswers.Conflicting
  public VmView extendLease(String name, @Body @Nullable String body) {
    return service.extendLease(name, bodies.read(body, LeaseRequest.class));
  }

  @RequiresRole({Role.COMPUTE_WRITE})
  @NamespaceScope(NamespaceScope.From.VM)
  @Delete("/{name}")
  @Operation(operationId = "deleteVm", summary = "Delete a VM")
  @ProblemAnswers.Missing
  @ProblemAnswers.Conflicting
  @ApiResponse(
      responseCode = "202",
      description = "accepted: the change is under way; the body is the VM as it is now",
      content =
          @Content(mediaType = "application/json", schema = @Schema(implementation = VmView.class)))
  public HttpResponse<VmView> delete(String name) {
    return HttpResponse.accepted().body(service.delete(name));
  }
}
