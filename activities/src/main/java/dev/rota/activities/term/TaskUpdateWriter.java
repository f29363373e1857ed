package dev.rota.activities.term;

import dev.rota.store.Columns;
import dev.rota.scheduling.ObservedTask;
import dev.rota.scheduling.Reconciliation;
import dev.rota.store.VmEventRepository;
import dev.rota.store.VmRepository;
import dev.rota.workflows.model.VmStatus;
import jakarta.inject.Singleton;
import java.time.Instant;
import java.util.Optional;

/**
 * Writes what a task's start or end means for its VM: the VM's status and an event. Each write is
 * conditional on the VM still being where the update found it, so the scheduler's term and an
 * agent's report racing over the same task change the VM once. Runs in the caller's transaction.
 */
@Singleton
public class TaskUpdateWriter {
  private final VmRepository vms;
  private final VmEventRepository events;

  public TaskUpdateWriter(VmRepository vms, VmEventRepository events) {
    this.vms = vms;
    this.events = events;
  }

  /** What changed, in a few words ("a failed: task a.0 exited with code 3"); empty when nothing did. */
  public Optional<String> write(Reconciliation.TaskUpdate u, Instant now) {
    ObservedTask t = u.task();
    if ("running".equals(t.state())) {
      if (vms.markRunning(u.vm(), u.worker(), now, "running on " + u.worker()) != 1) {
        return Optional.empty();
      }
      events.append(u.vm(), now, "started", "task " + t.id() + " running on worker " + u.worker());
      return Optional.of(u.vm() + " running on " + u.worker());
    }
    boolean clean = "exited".equals(t.state()) && Integer.valueOf(0).equals(t.exitCode());
    String outcome = clean ? VmStatus.STOPPED.wireName() : VmStatus.FAILED.wireName();
    String message =
        "failed".equals(t.state())
            ? "task " + t.id() + " failed" + (t.message() == null ? "" : ": " + t.message())
            : "task " + t.id() + " exited with code " + t.exitCode();
    if (vms.markEnded(u.vm(), u.worker(), outcome, t.exitCode(), now, Columns.truncate(message, 2048)) != 1) {
      return Optional.empty();
    }
    events.append(u.vm(), now, clean ? "exited" : "failed", Columns.truncate(message, 4096));
    return Optional.of(u.vm() + " " + outcome + ": " + message);
  }
}
