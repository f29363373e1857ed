package dev.rota.api.schedules;

import dev.rota.api.Durations;
import dev.rota.api.JsonBodies;
import dev.rota.api.auth.Caller;
import dev.rota.api.auth.RequiresRole;
import dev.rota.api.auth.Role;
import dev.rota.api.problem.ProblemAnswers;
import dev.rota.api.problem.Problems;
import dev.rota.api.templates.TemplateDispatch;
import dev.rota.api.templates.VmExpansion;
import dev.rota.api.vms.VmService;
import dev.rota.control.ScheduleCommands;
import dev.rota.control.ScheduleDefinition;
import dev.rota.control.ScheduleOverlap;
import dev.rota.control.SchedulesUnsupported;
import dev.rota.store.TemplateRepository;
import dev.rota.workflows.schedule.ScheduledRun;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Delete;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.Status;
import io.micronaut.http.exceptions.HttpStatusException;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /v1/schedules}: VMs of a template made at the times of a cron expression or every
 * interval, on Temporal Schedules (shown, and pausable, on the Temporal UI's Schedules page). Each
 * run makes one VM, named after the schedule and the run's time, and lasts as long as it runs: the
 * overlap policy decides what a run due meanwhile does.
 */
@ProblemAnswers.Guarded
@ProblemAnswers.Unsupported
@Tag(name = "Schedules", description = "VMs of a template made on a cron or an interval")
@Controller("/v1/schedules")
@ExecuteOn(TaskExecutors.BLOCKING)
public class ScheduleController {
  private static final Logger log = LoggerFactory.getLogger(ScheduleController.class);

  private final ScheduleCommands schedules;
  private final JsonBodies bodies;
  private final TemplateRepository templates;
  private final TemplateDispatch dispatch;
  private final VmExpansion expansion;

  public ScheduleController(
      ScheduleCommands schedules,
      JsonBodies bodies,
      TemplateRepository templates,
      TemplateDispatch dispatch,
      VmExpansion expansion) {
    this.schedules = schedules;
    this.bodies = bodies;
    this.templates = templates;
    this.dispatch = dispatch;
    this.expansion = expansion;
  }

  @RequiresRole({Role.COMPUTE_WRITE})
  @Post
  @Status(HttpStatus.CREATED)
  @RequestBody(
      required = true,
      content = @Content(schema = @Schema(implementation = ScheduleRequest.class)))
  @Operation(operationId = "createSchedule", summary = "Create a schedule")
  @ProblemAnswers.Invalid
  @ProblemAnswers.Conflicting
  public ScheduleView create(HttpRequest<?> http, @Body @Nullable String body) {
    ScheduleDefinition definition = checked(bodies.read(body, ScheduleRequest.class));
    ScheduleView made =
        ScheduleView.of(temporal(() -> schedules.create(definition, Caller.of(http).name())));
    log.info("schedule {} created", definition.name());
    return made;
  }

  @RequiresRole({Role.COMPUTE_READ})
  @Get
  @Operation(
      operationId = "listSchedules",
      summary = "List schedules, by name",
      description =
          "Temporal lists schedules as its visibility store has them: one just made may be missing"
              + " for a moment. GET /v1/schedules/{name} is always current.")
  public Map<String, List<ScheduleView>> list() {
    return Map.of("items", temporal(schedules::list).stream().map(ScheduleView::of).toList());
  }

  @RequiresRole({Role.COMPUTE_READ})
  @Get("/{name}")
  @Operation(operationId = "getSchedule", summary = "Get a schedule, its next times and runs")
  @ProblemAnswers.Missing
  public ScheduleView get(String name) {
    return ScheduleView.of(temporal(() -> schedules.get(name)));
  }

  @RequiresRole({Role.COMPUTE_WRITE})
  @Post("/{name}/pause")
  @RequestBody(content = @Content(schema = @Schema(implementation = PauseRequest.class)))
  @Operation(operationId = "pauseSchedule", summary = "Pause a schedule: no run comes due")
  @ProblemAnswers.Invalid
  @ProblemAnswers.Missing
  public ScheduleView pause(HttpRequest<?> http, String name, @Body @Nullable String body) {
    return paused(http, name, body, true);
  }

  @RequiresRole({Role.COMPUTE_WRITE})
  @Post("/{name}/resume")
  @RequestBody(content = @Content(schema = @Schema(implementation = PauseRequest.class)))
  @Operation(operationId = "resumeSchedule", summary = "Resume a paused schedule")
  @ProblemAnswers.Invalid
  @ProblemAnswers.Missing
  public ScheduleView resume(HttpRequest<?> http, String name, @Body @Nullable String body) {
    return paused(http, name, body, false);
  }

  /** Pauses or resumes the schedule, with the body's note or, without, who did it. */
  private ScheduleView paused(HttpRequest<?> http, String name, String body, boolean paused) {
    String done = paused ? "paused" : "resumed";
    String note = note(body, done + " by " + Caller.of(http).name());
    ScheduleView view =
        ScheduleView.of(
            temporal(() -> paused ? schedules.pause(name, note) : schedules.unpause(name, note)));
    log.info("schedule {} {}", name, done);
    return view;
  }

  /** A run now, as if it were due: the overlap policy applies to it as to any. */
  @RequiresRole({Role.COMPUTE_WRITE})
  @Post("/{name}/trigger")
  @Operation(
      operationId = "triggerSchedule",
      summary = "Make a run of a schedule now",
      description =
          "Temporal makes the run a moment after it answers: its VM shows in recentRuns soon after.")
  @ProblemAnswers.Missing
  public ScheduleView trigger(String name) {
    ScheduleView triggered = ScheduleView.of(temporal(() -> schedules.trigger(name)));
    log.info("schedule {} triggered", name);
    return triggered;
  }

  /** 204; the VMs its runs made go on, each until it ends. */
  @RequiresRole({Role.COMPUTE_WRITE})
  @Delete("/{name}")
  @Status(HttpStatus.NO_CONTENT)
  @Operation(operationId = "deleteSchedule", summary = "Delete a schedule")
  @ProblemAnswers.Missing
  public void delete(String name) {
    temporal(
        () -> {
          schedules.delete(name);
          return null;
        });
    log.info("schedule {} deleted", name);
  }

  private String note(String body, String otherwise) {
    if (body == null || body.isBlank()) {
      return otherwise;
    }
    PauseRequest request = bodies.read(body, PauseRequest.class);
    return request.note() == null ? otherwise : request.note();
  }

  /**
   * The request, checked whole before Temporal is asked: a 400 names the field, and nothing is
   * made.
   */
  private ScheduleDefinition checked(ScheduleRequest request) {
    if (request.cron() == null && request.interval() == null) {
      throw Problems.badRequest(
          "cron", "give cron (0 2 * * *) or interval (10m): when runs are due");
    }
    if (request.cron() != null && request.interval() != null) {
      throw Problems.badRequest("interval", "give cron or interval, not both");
    }
    if (request.cron() != null) {
      CronExpressions.problem(request.cron())
          .ifPresent(
              problem -> {
                throw Problems.badRequest("cron", problem);
              });
    }
    Duration interval =
        request.interval() == null
            ? null
            : Duration.ofSeconds(Durations.seconds("interval", request.interval(), false));
    Duration jitter =
        request.jitter() == null
            ? null
            : Duration.ofSeconds(Durations.seconds("jitter", request.jitter(), true));
    if (request.timeZone() != null) {
      try {
        ZoneId.of(request.timeZone());
      } catch (DateTimeException e) {
        throw Problems.badRequest(
            "timeZone", request.timeZone() + " is not a time zone, such as Europe/Berlin or UTC");
      }
    }
    if (templates.findById(request.template()).isEmpty()) {
      throw Problems.badRequest(
          "template",
          "template '" + request.template() + "' does not exist (POST /v1/templates makes it)");
    }
    // The run's VM as the first run would make it: a parameter missing, unknown or of the wrong
    // type is a 400 now, not a failed run later.
    VmService.spec(
        expansion.expand(
            dispatch.request(request.template(), request.name(), request.parameters()), ""),
        "");
    return new ScheduleDefinition(
        request.name(),
        new ScheduledRun(request.name(), request.template(), request.parameters()),
        request.cron() == null ? null : request.cron().trim(),
        interval,
        request.timeZone(),
        jitter == null || jitter.isZero() ? null : jitter,
        request.overlap() == null ? ScheduleOverlap.SKIP : ScheduleOverlap.of(request.overlap()),
        Boolean.TRUE.equals(request.paused()),
        request.note());
  }

  /**
   * The call to Temporal, its own refusals turned into problems: a server without Schedules is a
   * 501, and a schedule Temporal refuses a 400.
   */
  private static <T> T temporal(Supplier<T> call) {
    try {
      return call.get();
    } catch (SchedulesUnsupported e) {
      throw new HttpStatusException(HttpStatus.NOT_IMPLEMENTED, e.getMessage());
    } catch (IllegalArgumentException e) {
      throw Problems.badRequest("body", "Temporal refused it: " + e.getMessage());
    }
  }
}
