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
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A set's pass: its row says how many replicas it wants; its VMs (by {@code vm_set}) say which
 * exist. The rows are the truth, so a pass needs nothing from the one before and can be repeated at
 * will.
 */
@Singleton
public class VmSetActivitiesImpl implements VmSetActivities {
  private static final Logger log = LoggerFactory.getLogger(VmSetActivitiesImpl.class);

  /** Replicas stored per transaction: a statement batch each, kept well under its limits. */
  static final int CHUNK = 1000;

  private final VmSetRepository sets;
  private final VmRepository vms;
  private final VmSubmissions submissions;
  private final VmWorkflowStarter starter;
  private final SchedulerWaker scheduler;
  private final Clock clock;
  private final VmDeletion deletion;
  private final dev.rota.store.CertainCommits certain;
  private final VmActions actions;
  private final AskedDeletions asked;
  private final ReplicaDeletions replicaDeletions;

  public VmSetActivitiesImpl(
      VmSetRepository sets,
      VmRepository vms,
      VmSubmissions submissions,
      VmWorkflowStarter starter,
      SchedulerWaker scheduler,
      Clock clock,
      VmDeletion deletion,
      dev.rota.store.CertainCommits certain,
      VmActions actions,
      AskedDeletions asked,
      ReplicaDeletions replicaDeletions) {
    this.replicaDeletions = replicaDeletions;
    this.actions = actions;
    this.asked = asked;
    this.deletion = deletion;
    this.certain = certain;
    this.sets = sets;
    this.vms = vms;
    this.submissions = submissions;
    this.starter = starter;
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
    if (set.isPool()) {
      return poolPass(set, members);
    }
    int wanted = set.deleting() ? 0 : set.replicas();

    Map<Integer, VmRow> byOrdinal = new HashMap<>();
    List<VmRow> together = new ArrayList<>();
    List<VmRow> byTheirWorkflows = new ArrayList<>();
    members.sort(Comparator.comparing((VmRow m) -> m.membership().setOrdinal()).reversed());
    for (VmRow m : members) {
      if (m.membership().setOrdinal() < wanted) {
        byOrdinal.put(m.membership().setOrdinal(), m);
      } else if (ReplicaDeletions.together(m)) {
        together.add(m);
      } else {
        byTheirWorkflows.add(m);
      }
    }
    ReplicaDeletions.Outcome deletion =
        replicaDeletions.delete(
            set.name(),
            together,
            set.deleting()
                ? "deleted with set " + set.name()
                : "set " + set.name() + " scaled down to " + wanted);
    byTheirWorkflows.addAll(deletion.byTheirWorkflows());
    remove(byTheirWorkflows);
    int removing = byTheirWorkflows.size() + deletion.later();
    int deleted = deletion.deleted();
    if (set.deleting() && removing == 0) {
      sets.deleteById(set.name());
      return SetProgress.deleted();
    }

    List<VmRow> missing = new ArrayList<>();
    for (int ordinal = 0; ordinal < wanted; ordinal++) {
      if (!byOrdinal.containsKey(ordinal)) {
        missing.add(replica(set, ordinal));
      }
    }
    List<String> taken = new ArrayList<>();
    int created = submit(set, missing, taken);
    String message =
        taken.isEmpty()
            ? null
            : taken.size()
                + " VM names taken by VMs not of this set ("
                + String.join(", ", taken.subList(0, Math.min(5, taken.size())))
                + (taken.size() > 5 ? ", …" : "")
                + "); those replicas are made once the names are free";
    sets.recordMessage(set.name(), message);
    log.debug(
        "set {} pass: {} wanted, {} there, {} created, {} removing, {} names taken",
        set.name(),
        wanted,
        members.size(),
        created,
        removing,
        taken.size());
    // Another pass (the API's, as it answers a create) may have made some of the missing ones
    // between this pass's look and its write: they exist, though this pass did not make them.
    int exist =
        missing.size() == created
            ? members.size() - deleted + created
            : vms.replicasOf(set.name()).size();
    return new SetProgress(false, removing == 0, wanted, exist, created, removing, message);
  }

  /**
   * Asks the workflow of each of {@code replicas} to delete it, unless a pass asked it lately; the
   * asks that were taken are noted even when a later one fails.
   */
  private void remove(List<VmRow> replicas) {
    Instant now = clock.instant();
    List<VmRow> taken = new ArrayList<>();
    try {
      for (VmRow m : asked.due(replicas, now)) {
        deletion.delete(m);
        taken.add(m);
      }
    } finally {
      asked.asked(taken, now);
    }
  }

  /** Stores the replicas whose names are free and starts their workflows; how many it stored. */
  private int submit(VmSetRow set, List<VmRow> missing, List<String> taken) {
    int created = 0;
    for (int from = 0; from < missing.size(); from += CHUNK) {
      List<VmRow> stored =
          storeFree(set, missing.subList(from, Math.min(missing.size(), from + CHUNK)), taken);
      starter.startSoon(stored);
      created += stored.size();
    }
    if (created > 0) {
      scheduler.wake("set " + set.name() + ": " + created + " replicas submitted");
    }
    return created;
  }

  /**
   * A pool's pass: it keeps {@code replicas} (its minReady) replicas, fewer when VMs claimed from
   * it leave less room under its max; a replica is never made under an ordinal used before, so that
   * no replica takes the name a claimed VM's tasks carry. Those over the count go, the ones not yet
   * ready to claim first. A replica that ended for good unclaimed is deleted and made anew ({@link
   * dev.rota.core.lifecycle.PoolRule}), once its pause is over: until then the pass is not settled,
   * so that its workflow looks again. A pool that keeps its replicas suspended suspends each once
   * it runs and is ready, and is not settled until all are suspended.
   */
  private SetProgress poolPass(VmSetRow set, List<VmRow> replicas) {
    int wanted =
        set.deleting()
            ? 0
            : (int)
                Math.max(
                    0, Math.min(set.replicas(), set.poolMax() - vms.countClaimedFrom(set.name())));
    Instant now = clock.instant();
    List<VmRow> members = new ArrayList<>();
    List<VmRow> going = new ArrayList<>();
    boolean endedWaiting = false;
    for (VmRow m : replicas) {
      if (m.state().replacedInAPool(now)) {
        going.add(m);
      } else {
        members.add(m);
        endedWaiting |= m.state().endedForGood();
      }
    }
    if (members.size() > wanted) {
      members.sort(
          Comparator.comparing(
                  (VmRow m) ->
                      m.state().claimableInAPool(m.awaitingReadiness(), set.keepsSuspended()))
              .thenComparing(m -> -m.membership().setOrdinal()));
      List<VmRow> surplus = List.copyOf(members.subList(0, members.size() - wanted));
      going.addAll(surplus);
      members.removeAll(surplus);
    }
    remove(going);
    int removing = going.size();
    boolean unsuspended = set.keepsSuspended() && suspendReady(set, members);
    List<String> taken = new ArrayList<>();
    int missing = wanted - members.size();
    List<VmRow> stored =
        missing <= 0 ? List.of() : certain.write(() -> storeNext(set, missing, taken));
    starter.startSoon(stored);
    int created = stored.size();
    if (created > 0) {
      scheduler.wake("pool " + set.name() + ": " + created + " replicas submitted");
    }
    sets.recordMessage(
        set.name(),
        taken.isEmpty()
            ? null
            : "VM names taken by VMs not of this pool: "
                + String.join(", ", taken)
                + "; its next replicas take other names");
    int exist = replicas.size() - removing + created;
    return new SetProgress(
        false,
        removing == 0 && exist == wanted && !endedWaiting && !unsuspended,
        wanted,
        Math.max(exist, 0),
        created,
        removing,
        null);
  }

  /**
   * Asks the workflow of each replica that runs and is ready to suspend it; whether any replica is
   * not suspended yet (booting, or being suspended). A replica whose workflow does not take it now
   * (being suspended already, or Temporal away) is asked again by the next pass.
   */
  private boolean suspendReady(VmSetRow pool, List<VmRow> members) {
    boolean unsuspended = false;
    for (VmRow m : members) {
      if (m.state().isSuspended() || m.state().endedForGood()) {
        continue;
      }
      unsuspended = true;
      if (m.state().suspendedByItsPool(m.awaitingReadiness())) {
        try {
          actions.act(m.name(), vm -> vm::suspend);
        } catch (RuntimeException e) {
          log.debug(
              "pool {}: replica {} not suspended now: {}", pool.name(), m.name(), e.toString());
        }
      }
    }
    return unsuspended;
  }

  /**
   * Takes the pool's next {@code count} ordinals and stores a replica under each whose name no VM
   * holds, in one transaction: another pass that took them first leaves this one nothing to do, and
   * a pass never sees the ordinals taken without their replicas. The names held are added to {@code
   * taken}, their ordinals spent.
   */
  private List<VmRow> storeNext(VmSetRow set, int count, List<String> taken) {
    int from = set.nextOrdinal();
    if (sets.takeOrdinals(set.name(), from, from + count) != 1) {
      return List.of();
    }
    List<VmRow> replicas = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      replicas.add(replica(set, from + i));
    }
    java.util.Set<String> held = new java.util.HashSet<>();
    vms.findByNameInList(replicas.stream().map(VmRow::name).toList())
        .forEach(v -> held.add(v.name()));
    taken.addAll(held);
    return submissions.storeAll(
        replicas.stream().filter(r -> !held.contains(r.name())).toList(),
        "submitted by pool " + set.name() + "; waiting for the scheduler");
  }

  /**
   * A replica of the set's template; a pool's has no lease while it waits: the template's lease is
   * the VM's that claims it, from the claim ({@link PoolClaims}).
   */
  private VmRow replica(VmSetRow set, int ordinal) {
    return VmRow.replica(
        VmSetRow.replicaName(set.name(), ordinal),
        0,
        set.isPool() ? set.template().withLease(null, null) : set.template(),
        new VmSetMembership(set.name(), ordinal, null, null, set.keepsSuspended()),
        "waiting for the scheduler",
        clock.instant());
  }

  /**
   * Stores the replicas whose names are free, in one transaction, each owing its workflow's start;
   * adds to {@code taken} the names held by VMs not of the set. A name taken between the look and
   * the write fails the batch: by another pass of this set (the one the API makes as it answers,
   * beside the workflow's first), which stored those replicas already, or by a user's VM; the names
   * are looked at again, and what is still free is stored replica by replica.
   */
  private List<VmRow> storeFree(VmSetRow set, List<VmRow> replicas, List<String> taken) {
    List<VmRow> free = free(set, replicas, taken);
    String message = "submitted by set " + set.name() + "; waiting for the scheduler";
    try {
      return submissions.storeAll(free, message);
    } catch (RuntimeException e) {
      if (!Sql.isUniqueViolation(e)) {
        throw e;
      }
      log.debug(
          "set {}: a name of {} was taken meanwhile: {}", set.name(), free.size(), e.toString());
    }
    List<VmRow> stored = new ArrayList<>();
    for (VmRow r : free(set, free, taken)) {
      try {
        stored.add(submissions.submit(r, message));
      } catch (RuntimeException e) {
        if (!Sql.isUniqueViolation(e)) {
          throw e;
        }
        taken.add(r.name());
      }
    }
    return stored;
  }

  /**
   * The replicas whose names no VM holds; adds to {@code taken} those a VM not of the set holds
   * (one of the set holding the name is a replica another pass made).
   */
  private List<VmRow> free(VmSetRow set, List<VmRow> replicas, List<String> taken) {
    Map<String, VmRow> held = new HashMap<>();
    vms.findByNameInList(replicas.stream().map(VmRow::name).toList())
        .forEach(v -> held.put(v.name(), v));
    List<VmRow> free = new ArrayList<>();
    for (VmRow r : replicas) {
      VmRow holder = held.get(r.name());
      if (holder == null) {
        free.add(r);
      } else if (!set.name().equals(holder.membership().vmSet())) {
        taken.add(r.name());
      }
    }
    return free;
  }
}
