package dev.rota.control;

import dev.rota.scheduler.temporal.TemporalDeadlines;
import dev.rota.scheduler.temporal.WorkflowStubs;
import dev.rota.workflows.TaskQueues;
import dev.rota.workflows.schedule.ScheduledRun;
import dev.rota.workflows.schedule.ScheduledVmNames;
import dev.rota.workflows.schedule.ScheduledVmWorkflow;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.schedules.Schedule;
import io.temporal.client.schedules.ScheduleActionExecutionStartWorkflow;
import io.temporal.client.schedules.ScheduleActionResult;
import io.temporal.client.schedules.ScheduleActionStartWorkflow;
import io.temporal.client.schedules.ScheduleAlreadyRunningException;
import io.temporal.client.schedules.ScheduleClient;
import io.temporal.client.schedules.ScheduleClientOptions;
import io.temporal.client.schedules.ScheduleDescription;
import io.temporal.client.schedules.ScheduleHandle;
import io.temporal.client.schedules.ScheduleIntervalSpec;
import io.temporal.client.schedules.ScheduleListDescription;
import io.temporal.client.schedules.ScheduleOptions;
import io.temporal.client.schedules.SchedulePolicy;
import io.temporal.client.schedules.ScheduleSpec;
import io.temporal.client.schedules.ScheduleState;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Rota's schedules, kept as Temporal Schedules (one each, id {@link
 * ScheduledVmWorkflow#scheduleId}): Temporal keeps their definitions, fires their runs, applies
 * their overlap policies and shows them on its UI's Schedules page; nothing of them is in Rota's
 * database. Each run is a {@link ScheduledVmWorkflow} on the control queue.
 */
@Singleton
public class ScheduleCommands {
  /** The schedule's memo entry naming the account that made it. */
  static final String CREATED_BY = "createdBy";

  private final WorkflowStubs stubs;
  private final TemporalDeadlines deadlines;

  public ScheduleCommands(WorkflowStubs stubs, TemporalDeadlines deadlines) {
    this.stubs = stubs;
    this.deadlines = deadlines;
  }

  /** Made once, on first use: the Temporal client is there only once the host has connected. */
  private ScheduleClient client;

  private synchronized ScheduleClient client() {
    if (client != null) {
      return client;
    }
    WorkflowClient workflows = stubs.client();
    client =
        ScheduleClient.newInstance(
            workflows.getWorkflowServiceStubs(),
            ScheduleClientOptions.newBuilder()
                .setNamespace(workflows.getOptions().getNamespace())
                .setDataConverter(workflows.getOptions().getDataConverter())
                .build());
    return client;
  }

  /** Makes the schedule; {@link Refused} when one of its name exists. */
  public ScheduleSnapshot create(ScheduleDefinition definition, String createdBy) {
    String name = definition.name();
    call(
        name,
        () ->
            client()
                .createSchedule(
                    ScheduledVmWorkflow.scheduleId(name),
                    schedule(definition),
                    ScheduleOptions.newBuilder().setMemo(Map.of(CREATED_BY, createdBy)).build()));
    return get(name);
  }

  public ScheduleSnapshot get(String name) {
    return call(name, () -> snapshot(name, handle(name).describe()));
  }

  /**
   * Every schedule of Rota's, by name. Temporal lists schedules from its visibility store: one just
   * made may be missing for a moment, one just deleted still there.
   */
  public List<ScheduleSnapshot> list() {
    return call(
        "",
        () -> {
          List<String> names;
          try (java.util.stream.Stream<ScheduleListDescription> all = client().listSchedules()) {
            names =
                all.map(s -> ScheduledVmWorkflow.scheduleName(s.getScheduleId()))
                    .filter(java.util.Objects::nonNull)
                    .sorted()
                    .toList();
          }
          List<ScheduleSnapshot> found = new java.util.ArrayList<>();
          for (String name : names) {
            try {
              found.add(snapshot(name, handle(name).describe()));
            } catch (RuntimeException e) {
              if (code(e) != Status.Code.NOT_FOUND) {
                throw e;
              }
            }
          }
          found.sort(Comparator.comparing(s -> s.definition().name()));
          return found;
        });
  }

  public ScheduleSnapshot pause(String name, String note) {
    call(name, () -> handle(name).pause(note));
    return get(name);
  }

  public ScheduleSnapshot unpause(String name, String note) {
    call(name, () -> handle(name).unpause(note));
    return get(name);
  }

  /** A run now, with the schedule's own overlap policy. */
  public ScheduleSnapshot trigger(String name) {
    call(name, () -> handle(name).trigger());
    return get(name);
  }

  /** Ends the schedule; the runs it made go on, and their VMs with them. */
  public void delete(String name) {
    call(name, () -> handle(name).delete());
  }

  private ScheduleHandle handle(String name) {
    return client().getHandle(ScheduledVmWorkflow.scheduleId(name));
  }

  static Schedule schedule(ScheduleDefinition d) {
    ScheduleSpec.Builder spec = ScheduleSpec.newBuilder();
    if (d.cron() != null) {
      spec.setCronExpressions(List.of(d.cron()));
    } else {
      spec.setIntervals(List.of(new ScheduleIntervalSpec(d.interval())));
    }
    if (d.timeZone() != null) {
      spec.setTimeZoneName(d.timeZone());
    }
    if (d.jitter() != null) {
      spec.setJitter(d.jitter());
    }
    ScheduledRun run = d.run();
    return Schedule.newBuilder()
        .setAction(
            ScheduleActionStartWorkflow.newBuilder()
                .setWorkflowType(ScheduledVmWorkflow.class)
                .setArguments(run)
                .setOptions(
                    WorkflowOptions.newBuilder()
                        .setWorkflowId(ScheduledVmWorkflow.scheduleId(d.name()))
                        .setTaskQueue(TaskQueues.CONTROL)
                        .setStaticSummary(
                            "Schedule " + d.name() + ": a VM of template " + run.template())
                        .setStaticDetails(
                            "Makes one VM of template `"
                                + run.template()
                                + "` and lasts as long as it runs; cancelled, it stops its VM."
                                + " The VM: `GET /v1/vms/<schedule>-<date>-<time>`")
                        .build())
                .build())
        .setSpec(spec.build())
        .setPolicy(SchedulePolicy.newBuilder().setOverlap(d.overlap().policy()).build())
        .setState(
            ScheduleState.newBuilder()
                .setPaused(d.paused())
                .setNote(d.note() == null ? "" : d.note())
                .build())
        .build();
  }

  private ScheduleSnapshot snapshot(String name, ScheduleDescription description) {
    Schedule schedule = description.getSchedule();
    ScheduleActionStartWorkflow action = (ScheduleActionStartWorkflow) schedule.getAction();
    ScheduledRun run = action.getArguments().get(0, ScheduledRun.class);
    ScheduleSpec spec = schedule.getSpec();
    String cron = spec.getCronExpressions().isEmpty() ? null : spec.getCronExpressions().get(0);
    Duration interval =
        spec.getIntervals().isEmpty() ? null : spec.getIntervals().get(0).getEvery();
    String zone = spec.getTimeZoneName();
    Duration jitter = spec.getJitter();
    String note = schedule.getState().getNote();
    ScheduleDefinition definition =
        new ScheduleDefinition(
            name,
            run,
            cron,
            interval,
            zone == null || zone.isEmpty() ? null : zone,
            jitter == null || jitter.isZero() ? null : jitter,
            ScheduleOverlap.of(schedule.getPolicy().getOverlap()),
            schedule.getState().isPaused(),
            note == null || note.isEmpty() ? null : note);
    Object createdBy = description.getMemo(CREATED_BY, String.class);
    var info = description.getInfo();
    List<ScheduleSnapshot.Run> recent =
        info.getRecentActions().stream().map(r -> run(name, r)).toList();
    java.util.TreeSet<String> running = new java.util.TreeSet<>();
    info.getRunningActions().stream()
        .filter(ScheduleActionExecutionStartWorkflow.class::isInstance)
        .forEach(a -> running.add(vm(name, (ScheduleActionExecutionStartWorkflow) a)));
    // Temporal follows its runs only where the overlap policy needs them: with allowAll it lists
    // none as running, and its visibility store is asked instead.
    stubs
        .client()
        .listExecutions(
            "TemporalScheduledById = '"
                + ScheduledVmWorkflow.scheduleId(name)
                + "' AND ExecutionStatus = 'Running'")
        .forEach(
            w ->
                running.add(
                    ScheduledVmNames.of(
                        name, w.getExecution().getWorkflowId(), w.getExecution().getRunId())));
    return new ScheduleSnapshot(
        definition,
        createdBy == null ? null : createdBy.toString(),
        info.getCreatedAt(),
        info.getLastUpdatedAt(),
        info.getNextActionTimes(),
        recent,
        List.copyOf(running),
        info.getNumActions(),
        info.getNumActionsSkippedOverlap());
  }

  private static ScheduleSnapshot.Run run(String name, ScheduleActionResult result) {
    String vm =
        result.getAction() instanceof ScheduleActionExecutionStartWorkflow started
            ? vm(name, started)
            : null;
    return new ScheduleSnapshot.Run(result.getScheduledAt(), result.getStartedAt(), vm);
  }

  private static String vm(String name, ScheduleActionExecutionStartWorkflow run) {
    return ScheduledVmNames.of(name, run.getWorkflowId(), run.getFirstExecutionRunId());
  }

  private void call(String name, Runnable call) {
    call(
        name,
        () -> {
          call.run();
          return null;
        });
  }

  /** The call within the caller's deadline, what Temporal answers turned into what it means. */
  private <T> T call(String name, Supplier<T> call) {
    try {
      return deadlines.within(ControlWorkflows.TEMPORAL_DEADLINE, call);
    } catch (ScheduleAlreadyRunningException e) {
      throw new Refused("schedule '" + name + "' already exists");
    } catch (RuntimeException e) {
      Status.Code code = code(e);
      if (code == null) {
        throw e;
      }
      switch (code) {
        case NOT_FOUND -> throw new NotFound("schedule", name);
        case UNIMPLEMENTED -> throw new SchedulesUnsupported();
        case INVALID_ARGUMENT ->
            throw new IllegalArgumentException(Status.fromThrowable(e).getDescription(), e);
        case ALREADY_EXISTS -> throw new Refused("schedule '" + name + "' already exists");
        case DEADLINE_EXCEEDED, UNAVAILABLE, CANCELLED ->
            throw new NotAnswered(
                "Temporal did not answer within "
                    + ControlWorkflows.TEMPORAL_DEADLINE.toSeconds()
                    + " s; nothing was done");
        default -> throw e;
      }
    }
  }

  /** The gRPC status a call ended with, wherever the SDK wrapped it; null for another failure. */
  private static Status.Code code(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof StatusRuntimeException s) {
        return s.getStatus().getCode();
      }
    }
    return null;
  }
}
