package dev.rota.workflows.vmset;

import dev.rota.workflows.ActivityDefaults;
import dev.rota.workflows.Timers;
import io.temporal.workflow.Workflow;
import java.time.Duration;

/**
 * Pass after pass, makes a set's replicas what its row says, in the manner of a Kubernetes
 * ReplicaSet controller: a pass on start, on every {@link #changed()} signal, soon after a pass
 * that left work in flight (a replica still being deleted, a name still held by a deleted VM's
 * closing workflow), and every {@link #RESYNC} in any case, which replaces a replica deleted behind
 * the set's back. The passes are the workflow's history; the set's shape is the store's, so nothing
 * here needs to survive a continue-as-new but the name.
 */
public class VmSetWorkflowImpl implements VmSetWorkflow {
  static final Duration RESYNC = Duration.ofMinutes(1);
  static final Duration RETRY = Duration.ofSeconds(5);

  /** Passes per run before continuing as new: keeps a long-lived set's history short. */
  static final int PASSES_PER_RUN = 200;

  private final VmSetActivities activities =
      Workflow.newActivityStub(
          VmSetActivities.class, ActivityDefaults.store(Duration.ofMinutes(1)));

  private boolean changed;
  private SetProgress last;

  @Override
  public void run(String setName) {
    for (int pass = 0; pass < PASSES_PER_RUN; pass++) {
      changed = false;
      last = activities.reconcile(new VmSetActivities.SetRef(setName));
      if (last.gone()) {
        return;
      }
      Workflow.setCurrentDetails(details(setName, last));
      if (last.settled()) {
        Timers.sleepUnless(RESYNC, "resync", () -> changed);
      } else {
        Timers.sleepUnless(RETRY, "replicas in flight", () -> changed);
      }
    }
    Workflow.continueAsNew(setName);
  }

  @Override
  public void changed() {
    changed = true;
  }

  @Override
  public SetProgress progress() {
    return last;
  }

  /** What the Temporal UI shows under the set's current details. */
  static String details(String setName, SetProgress p) {
    String line =
        "**"
            + p.replicas()
            + " of "
            + p.desired()
            + " replicas exist**"
            + (p.created() > 0 ? "; submitted " + p.created() : "")
            + (p.removing() > 0 ? "; removing " + p.removing() : "")
            + (p.settled() ? "" : "; looking again in " + RETRY.toSeconds() + " s");
    return line
        + (p.message() != null ? "\n\n" + p.message() : "")
        + "\n\nIts replicas: `GET /v1/vms?set="
        + setName
        + "`";
  }
}
