package dev.rota.control;

import dev.rota.core.model.VmStatus;
import dev.rota.store.VmRepository;
import dev.rota.store.VmRow;
import dev.rota.workflows.schedule.ScheduledRun;
import dev.rota.workflows.schedule.ScheduledVmActivities;
import io.temporal.activity.Activity;
import io.temporal.failure.ApplicationFailure;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.Optional;

/** What a schedule's run does to its VM: makes it of the template, waits for its end, stops it. */
@Singleton
public class ScheduledVmActivitiesImpl implements ScheduledVmActivities {
  /** How often a run waiting for its VM reads the VM's status. */
  static final Duration LOOK_EVERY = Duration.ofSeconds(2);

  private final ScheduledVmMaker maker;
  private final VmRepository vms;
  private final VmCommands commands;

  public ScheduledVmActivitiesImpl(ScheduledVmMaker maker, VmRepository vms, VmCommands commands) {
    this.maker = maker;
    this.vms = vms;
    this.commands = commands;
  }

  @Override
  public void dispatch(ScheduledRun run, String vm) {
    try {
      maker.make(run, vm);
    } catch (ScheduledVmMaker.CannotMake e) {
      throw ApplicationFailure.newNonRetryableFailure(
          "schedule " + run.schedule() + " cannot make VM " + vm + ": " + e.getMessage(),
          "ScheduleCannotDispatch");
    }
  }

  @Override
  public String awaitEnd(String vm) {
    while (true) {
      Optional<VmRow> row = vms.findById(vm);
      String end = row.isEmpty() ? "deleted" : end(row.get());
      if (end != null) {
        return end;
      }
      // Tells Temporal this host still waits, and learns of the run's cancellation.
      Activity.getExecutionContext().heartbeat(null);
      try {
        Thread.sleep(LOOK_EVERY.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted waiting for VM " + vm, e);
      }
    }
  }

  /** How the VM's run ended, or null while it goes on (a failed VM to be restarted goes on). */
  static String end(VmRow vm) {
    String status = vm.state().status();
    if (status.equals(VmStatus.STOPPED.wireName())) {
      return "stopped";
    }
    if (status.equals(VmStatus.FAILED.wireName()) && vm.state().restartAt() == null) {
      return "failed";
    }
    return null;
  }

  @Override
  public void stop(String vm) {
    try {
      commands.stop(vm);
    } catch (NotFound | Refused e) {
      // Gone, or stopping or stopped already: what was asked holds.
    }
  }
}
