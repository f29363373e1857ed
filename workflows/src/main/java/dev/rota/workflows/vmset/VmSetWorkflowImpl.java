package dev.rota.workflows.vmset;

import dev.rota.workflows.ActivityDefaults;
import dev.rota.workflows.Timers;
import io.temporal.activity.ActivityOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;

/**
 * Pass after pass, makes a set's replicas what its row says, in the manner of a Kubernetes
 * ReplicaSet controller: a pass on start, on every {@link #changed()} signal (the set's row
 * changed, or one of its replicas was deleted), soon after a pass that left work in flight (a
 * replica still being deleted), and every {@link #RESYNC} in any case, in case a signal was lost.
 * The passes are the workflow's history: a set that stays as it is adds a pass an hour, so its
 * history shows its changes. The set's shape is the store's, so nothing here needs to survive a
 * continue-as-new but the name.
 */
public class VmSetWorkflowImpl implements VmSetWorkflow {
  static final Duration RESYNC = Duration.ofHours(1);

  static final Duration RETRY = Duration.ofSeconds(5);

  /** Passes per run before continuing as new: keeps a long-lived set's history short. */
  static final int PASSES_PER_RUN = 200;

  /** The pass's activity, its summary why the pass comes. */
  private static VmSetActivities pass(String why) {
    return Workflow.newActivityStub(
        VmSetActivities.class,
        ActivityOptions.newBuilder(ActivityDefaults.store(Duration.ofMinutes(1)))
            .setSummary(why)
            .build());
  }

  private boolean changed;
  private SetProgress last;

  @Override
  public void run(String setName) {
    String why = "make the replicas of " + setName + " match the set";
    for (int pass = 0; pass < PASSES_PER_RUN; pass++) {
      changed = false;
      last = pass(why).reconcile(new VmSetActivities.SetRef(setName));
      if (last.gone()) {
        return;
      }
      Workflow.setCurrentDetails(details(setName, last));
      boolean woken;
      if (last.settled()) {
        woken =
            Timers.sleepUnless(
                RESYNC,
                last.replicas() + " of " + last.desired() + " replicas; looking again on a change",
                () -> changed);
      } else {
        woken =
            Timers.sleepUnless(
                RETRY,
                "replicas in flight: " + last.replicas() + " of " + last.desired() + " exist",
                () -> changed);
      }
      why =
          woken
              ? "the set or a replica changed: look again"
              : last.settled() ? "resync: look again" : "look again at the replicas in flight";
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
        + (p.rollout() != null ? "\n\n" + p.rollout() : "")
        + (p.message() != null ? "\n\n" + p.message() : "")
        + "\n\nIts replicas: `GET /v1/vms?set="
        + setName
        + "`";
  }
}
