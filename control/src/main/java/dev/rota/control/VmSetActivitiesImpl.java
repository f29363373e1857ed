package dev.rota.control;

import dev.rota.scheduler.SchedulerWaker;
import dev.rota.store.Sql;
import dev.rota.store.VmRepository;
import dev.rota.store.VmRow;
import dev.rota.store.VmSetMembership;
import dev.rota.store.VmSetRepository;
import dev.rota.store.VmSetRow;
import dev.rota.workflows.vmset.SetProgress;
import dev.rota.workflows.vmset.VmSetActivities;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A set's pass: its row says how many replicas it wants; its VMs (by {@code vm_set}) say which
 * exist. The rows are the truth, so a pass needs nothing from the one before and can be repeated at
 * will.
 */
@Singleton
public class VmSetActivitiesImpl implements VmSetActivities {
  private final VmSetRepository sets;
  private final VmRepository vms;
  private final VmSubmissions submissions;
  private final ControlWorkflows workflows;
  private final SchedulerWaker scheduler;
  private final Clock clock;
  private final VmDeletion deletion;

  public VmSetActivitiesImpl(
      VmSetRepository sets,
      VmRepository vms,
      VmSubmissions submissions,
      ControlWorkflows workflows,
      SchedulerWaker scheduler,
      Clock clock,
      VmDeletion deletion) {
    this.deletion = deletion;
    this.sets = sets;
    this.vms = vms;
    this.submissions = submissions;
    this.workflows = workflows;
    this.scheduler = scheduler;
    this.clock = clock;
  }

  @Override
  public SetProgress reconcile(SetRef ref) {
    VmSetRow set = sets.findById(ref.set()).orElse(null);
    if (set == null) {
      return SetProgress.deleted();
    }
    List<VmRow> members = new ArrayList<>(vms.replicasOf(set.name()));
    if (set.deleting() && members.isEmpty()) {
      sets.deleteById(set.name());
      return SetProgress.deleted();
    }
    int wanted = set.deleting() ? 0 : set.replicas();

    int removing = 0;
    Map<Integer, VmRow> byOrdinal = new HashMap<>();
    members.sort(Comparator.comparing((VmRow m) -> m.membership().setOrdinal()).reversed());
    for (VmRow m : members) {
      if (m.membership().setOrdinal() >= wanted) {
        deletion.delete(m);
        removing++;
      } else {
        byOrdinal.put(m.membership().setOrdinal(), m);
        ensureWorkflow(m);
      }
    }

    int created = 0;
    boolean nameStillClosing = false;
    List<String> taken = new ArrayList<>();
    for (int ordinal = 0; ordinal < wanted; ordinal++) {
      if (byOrdinal.containsKey(ordinal)) {
        continue;
      }
      switch (submit(set, ordinal)) {
        case SUBMITTED -> created++;
        case NAME_TAKEN -> taken.add(VmSetRow.replicaName(set.name(), ordinal));
        case NAME_CLOSING -> nameStillClosing = true;
      }
    }
    if (created > 0) {
      scheduler.wake("set " + set.name() + ": " + created + " replicas submitted");
    }
    String message =
        taken.isEmpty()
            ? null
            : taken.size()
                + " VM names taken by VMs not of this set ("
                + String.join(", ", taken.subList(0, Math.min(5, taken.size())))
                + (taken.size() > 5 ? ", …" : "")
                + "); those replicas are made once the names are free";
    sets.recordMessage(set.name(), message);
    return new SetProgress(
        false,
        removing == 0 && !nameStillClosing,
        wanted,
        members.size() + created,
        created,
        removing,
        message);
  }

  private enum Submission {
    SUBMITTED,
    NAME_TAKEN,
    NAME_CLOSING
  }

  private Submission submit(VmSetRow set, int ordinal) {
    String name = VmSetRow.replicaName(set.name(), ordinal);
    VmRow saved;
    try {
      saved =
          submissions.store(
              VmRow.replica(
                  name,
                  0,
                  set.template(),
                  new VmSetMembership(set.name(), ordinal),
                  "waiting for the scheduler",
                  clock.instant()),
              "submitted by set " + set.name() + "; waiting for the scheduler");
    } catch (RuntimeException e) {
      if (Sql.isUniqueViolation(e)) {
        return Submission.NAME_TAKEN;
      }
      throw e;
    }
    try {
      workflows.startVm(saved, false);
      return Submission.SUBMITTED;
    } catch (WorkflowExecutionAlreadyStarted e) {
      // The workflow of a deleted VM of that name is still closing: try again on the next pass.
      submissions.remove(name);
      return Submission.NAME_CLOSING;
    }
  }

  /**
   * A replica not yet heard of may have lost its workflow to a crash between its row and its start
   * (the pass that submitted it is repeated, and then finds the row): start it, or find it started.
   */
  private void ensureWorkflow(VmRow replica) {
    if (replica.state().restartCount() == 0
        && replica.state().taskEventId() == 0
        && "pending".equals(replica.state().status())) {
      try {
        workflows.startVm(replica, false);
      } catch (WorkflowExecutionAlreadyStarted e) {
        // started, as it should be
      }
    }
  }
}
