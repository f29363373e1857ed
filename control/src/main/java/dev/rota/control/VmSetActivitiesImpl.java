package dev.rota.control;

import dev.rota.core.lifecycle.SetRule;
import dev.rota.core.model.VmStatus;
import dev.rota.scheduler.SchedulerWaker;
import dev.rota.store.SetRollout;
import dev.rota.store.Sql;
import dev.rota.store.VmRepository;
import dev.rota.store.VmRow;
import dev.rota.store.VmSetMembership;
import dev.rota.store.VmSetRepository;
import dev.rota.store.VmSetRow;
import dev.rota.store.VmState;
import dev.rota.workflows.vmset.SetProgress;
import dev.rota.workflows.vmset.VmSetActivities;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
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
  private final SetVersions versions;
  private final ControlWorkflows workflows;

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
      ReplicaDeletions replicaDeletions,
      SetVersions versions,
      ControlWorkflows workflows) {
    this.versions = versions;
    this.workflows = workflows;
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
    Instant now = clock.instant();
    java.util.Set<Long> going = asked.askedLately(members, now);
    // Failures count while a rollout is under way, from the version's making on.
    Instant versionSince =
        set.templateVersion() == set.rollout().stableVersion() ? null : versions.since(set);
    Map<Integer, VmRow> byOrdinal = new HashMap<>();
    members.forEach(m -> byOrdinal.put(m.membership().setOrdinal(), m));
    SetRule.Plan plan = plan(set, members, going, java.util.Set.of(), versionSince, now);
    RolloutWatch watch = set.deleting() ? RolloutWatch.QUIET : watchRollout(set, plan, now);
    if (watch.reverted()) {
      // The set has another template now: the next pass, at once, rolls that one out.
      return new SetProgress(
          false, false, wanted, members.size(), 0, 0, watch.message(), watch.message());
    }

    List<VmRow> together = new ArrayList<>();
    List<VmRow> byTheirWorkflows = new ArrayList<>();
    for (int ordinal : plan.remove()) {
      VmRow m = byOrdinal.get(ordinal);
      (ReplicaDeletions.together(m) ? together : byTheirWorkflows).add(m);
    }
    ReplicaDeletions.Outcome deletion =
        replicaDeletions.delete(set.name(), together, why(set, wanted, plan));
    byTheirWorkflows.addAll(deletion.byTheirWorkflows());
    remove(byTheirWorkflows, going);
    int removing = byTheirWorkflows.size() + deletion.later() + going.size();
    int deleted = deletion.deleted();
    if (set.deleting() && removing == 0) {
      sets.deleteById(set.name());
      return SetProgress.deleted();
    }

    List<VmRow> missing = new ArrayList<>();
    for (int ordinal : plan.make()) {
      missing.add(replica(set, ordinal));
    }
    List<String> taken = new ArrayList<>();
    List<String> refused = new ArrayList<>();
    int created = submit(set, missing, taken, refused);
    String message =
        !refused.isEmpty()
            ? waitingForQuota(refused.get(0))
            : taken.isEmpty()
                ? watch.message()
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
    return new SetProgress(
        false,
        // A rollout stalled, paused or awaiting its promotion waits for a change of the set or
        // its replicas, or the resync; replicas its quota has no room for now, a pass soon (room
        // is made by VMs of its namespace, of which the set hears nothing).
        removing == 0
            && refused.isEmpty()
            && !watch.underWay()
            && (!plan.rolling() || watch.message() != null),
        wanted,
        exist,
        created,
        removing,
        message,
        rollout(set, plan, missing, created));
  }

  /**
   * What a pass over the set's {@code members} does ({@link SetRule}): those in {@code going} are
   * being removed already, those made of a version in {@code current} count as of the set's current
   * one, and failures count from {@code failuresSince} on (null: none do).
   */
  static SetRule.Plan plan(
      VmSetRow set,
      List<VmRow> members,
      java.util.Set<Long> going,
      java.util.Set<Integer> current,
      Instant failuresSince,
      Instant now) {
    List<SetRule.Replica> seen = new ArrayList<>();
    for (VmRow m : members) {
      int version = versionOf(m, set);
      seen.add(
          new SetRule.Replica(
              m.membership().setOrdinal(),
              current.contains(version) ? set.templateVersion() : version,
              going.contains(m.seq()),
              readySince(m),
              failuresSince != null && failedSince(m, failuresSince)));
    }
    return SetRule.plan(
        set.deleting() ? 0 : set.replicas(),
        set.templateVersion(),
        seen,
        new SetRule.Policy(
            set.maxUnavailable(),
            set.update().maxSurge(),
            Duration.ofSeconds(set.update().minHealthySeconds()),
            newAtMost(set, seen)),
        now);
  }

  /**
   * How many new replicas the set's rollout goes to now: those it has while paused, its canaries
   * until they are promoted, else all it wants.
   */
  private static int newAtMost(VmSetRow set, List<SetRule.Replica> seen) {
    if (set.deleting() || set.templateVersion() == set.rollout().stableVersion()) {
      return SetRule.Policy.ALL;
    }
    if (set.rollout().paused()) {
      return (int)
          seen.stream().filter(r -> !r.going() && r.version() == set.templateVersion()).count();
    }
    return awaitingPromotion(set) ? set.update().canary() : SetRule.Policy.ALL;
  }

  private static boolean awaitingPromotion(VmSetRow set) {
    return set.update().canary() > 0 && !set.rollout().promoted();
  }

  /**
   * Keeps a rollout's progress on the set's row: a rollout over makes its version the one a revert
   * goes back to; one that had no more new replicas available for its deadline is stalled, and,
   * with {@code autoRevert}, gives the set the template of the version that last rolled out whole,
   * as its next version.
   */
  private RolloutWatch watchRollout(VmSetRow set, SetRule.Plan plan, Instant now) {
    SetRollout rollout = set.rollout();
    int version = set.templateVersion();
    if (version == rollout.stableVersion()) {
      return RolloutWatch.QUIET;
    }
    if (!plan.rolling() && plan.updatedAvailable() == set.replicas()) {
      sets.rolledOut(set.name(), version);
      log.debug("set {}: version {} rolled out", set.name(), version);
      return RolloutWatch.QUIET;
    }
    if (!plan.failed().isEmpty()) {
      return stop(
          set,
          "the rollout of version "
              + version
              + " failed: its new "
              + (plan.failed().size() == 1 ? "replica " : "replicas ")
              + String.join(
                  ", ",
                  plan.failed().stream().map(o -> VmSetRow.replicaName(set.name(), o)).toList())
              + " failed");
    }
    if (set.rollout().paused()) {
      return RolloutWatch.held(
          "the rollout of version "
              + version
              + " is paused, "
              + plan.updated()
              + " of "
              + set.replicas()
              + " replicas updated; resume it with rota vm-set rollout resume "
              + set.name());
    }
    int canaries = Math.min(set.update().canary(), set.replicas());
    if (awaitingPromotion(set) && plan.updatedAvailable() >= canaries) {
      // Its canaries serve: it waits for a user, or promotes them itself. Until then, canaries
      // that do not become available stall it as any new replicas would.
      if (!set.update().autoPromote()) {
        return RolloutWatch.held(
            "the rollout of version "
                + version
                + " waits for its "
                + canaries
                + " canaries, available, to be promoted: rota vm-set promote "
                + set.name());
      }
      sets.promote(set.name(), version, now);
      log.debug("set {}: the canaries of version {} promoted by themselves", set.name(), version);
      return RolloutWatch.GOING_ON;
    }
    SetRule.Progress was =
        new SetRule.Progress(
            rollout.available(), rollout.progressAt() == null ? now : rollout.progressAt());
    SetRule.Progress progress = was.after(plan.updatedAvailable(), now);
    if (!progress.equals(was) || rollout.progressAt() == null) {
      sets.rolloutProgressed(set.name(), version, progress.available(), progress.since());
    }
    Duration deadline = Duration.ofSeconds(set.update().progressDeadlineSeconds());
    if (!progress.stalled(deadline, now)) {
      return RolloutWatch.GOING_ON;
    }
    return stop(
        set,
        "the rollout of version "
            + version
            + " is stalled: "
            + progress.available()
            + " of its "
            + set.replicas()
            + " replicas available since "
            + progress.since()
            + ", longer than its progress deadline of "
            + dev.rota.core.model.WrittenDuration.of(set.update().progressDeadlineSeconds()));
  }

  /**
   * A rollout that failed or stalled stops, saying {@code why}; with {@code autoRevert}, the set
   * goes back to the template of the version that last rolled out whole, as its next version.
   */
  private RolloutWatch stop(VmSetRow set, String why) {
    int version = set.templateVersion();
    int stable = set.rollout().stableVersion();
    if (!set.update().autoRevert()) {
      return new RolloutWatch(why, false, false);
    }
    // Going back to what ran well waits for no canaries.
    VmSetRow back = versions.revert(set.name(), stable, "rota (auto-revert)", true);
    if (back.templateVersion() == version) {
      // Its template is the stable version's already (a revert that stalled): nothing to go back
      // to.
      return new RolloutWatch(why, false, false);
    }
    log.info(
        "set {}: {}; reverted to version {} as version {}",
        set.name(),
        why,
        stable,
        back.templateVersion());
    workflows.setChanged(set.name());
    return new RolloutWatch(
        why + "; reverted to version " + stable + " as version " + back.templateVersion(),
        true,
        false);
  }

  /**
   * What watching a rollout found: what to tell the user (a stalled rollout), or null; whether it
   * reverted the set's template; whether it is under way, neither over nor stalled.
   */
  private record RolloutWatch(String message, boolean reverted, boolean underWay) {
    static final RolloutWatch QUIET = new RolloutWatch(null, false, false);

    /** A rollout that goes on: the set's workflow looks again soon, until its deadline. */
    static final RolloutWatch GOING_ON = new RolloutWatch(null, false, true);

    /** A rollout that waits for a user (paused, or its canaries made): no deadline runs. */
    static RolloutWatch held(String why) {
      return new RolloutWatch(why, false, false);
    }
  }

  /**
   * The rollout's state in the pass's result and the set's workflow: which version, how far, what
   * this pass replaced; null without one.
   */
  private static String rollout(VmSetRow set, SetRule.Plan plan, List<VmRow> made, int created) {
    if (!plan.rolling() || set.deleting()) {
      return null;
    }
    StringBuilder line =
        new StringBuilder("rolling out version ")
            .append(set.templateVersion())
            .append(": ")
            .append(plan.updated())
            .append(" of ")
            .append(set.replicas())
            .append(" replicas updated, ")
            .append(plan.available())
            .append(" available");
    if (!plan.remove().isEmpty()) {
      line.append("; replacing ")
          .append(
              String.join(
                  ", ",
                  plan.remove().stream().map(o -> VmSetRow.replicaName(set.name(), o)).toList()));
    }
    if (created > 0) {
      line.append("; made ")
          .append(
              created == made.size()
                  ? String.join(", ", made.stream().map(VmRow::name).toList())
                  : created + " new");
    }
    return line.toString();
  }

  /**
   * Why the pass's replicas go, in the Temporal UI: the set's deletion, a rollout or a scale-down.
   */
  private static String why(VmSetRow set, int wanted, SetRule.Plan plan) {
    if (set.deleting()) {
      return "deleted with set " + set.name();
    }
    return plan.rolling()
        ? "set " + set.name() + " rolling out version " + set.templateVersion()
        : "set " + set.name() + " scaled down to " + wanted;
  }

  /**
   * The set's template version the replica was made of ({@link SetVersions}: or a later one of the
   * same template); a replica made by a host that did not write it yet is of the version the set
   * had then, taken as the current one.
   */
  static int versionOf(VmRow replica, VmSetRow set) {
    Integer version = replica.membership().setVersion();
    return version == null ? set.templateVersion() : version;
  }

  /**
   * Since when the replica runs, ready: its readiness check's word where it has one, else its
   * start; null while it does not.
   */
  private static Instant readySince(VmRow replica) {
    if (!"running".equals(replica.state().status()) || replica.awaitingReadiness()) {
      return null;
    }
    Instant since =
        replica.checksReadiness() ? replica.readiness().since() : replica.state().startedAt();
    return since == null ? Instant.EPOCH : since;
  }

  /**
   * Whether the replica failed at {@code since} or later: it shows failed, or started again after
   * it failed (its task failed, or exited with another code than 0).
   */
  private static boolean failedSince(VmRow replica, Instant since) {
    VmState state = replica.state();
    boolean failed = state.vmStatus() == VmStatus.FAILED || replica.notes().failedOn() != null;
    return failed && state.finishedAt() != null && !state.finishedAt().isBefore(since);
  }

  /**
   * Asks the workflow of each of {@code replicas} to delete it, unless a pass asked it lately (its
   * submission in {@code askedLately}, as the pass read them); the asks that were taken are noted
   * even when a later one fails.
   */
  private void remove(List<VmRow> replicas, java.util.Set<Long> askedLately) {
    Instant now = clock.instant();
    List<VmRow> taken = new ArrayList<>();
    try {
      for (VmRow m : replicas) {
        if (askedLately.contains(m.seq())) {
          continue;
        }
        deletion.delete(m);
        taken.add(m);
      }
    } finally {
      asked.asked(taken, now);
    }
  }

  /**
   * Stores the replicas whose names are free and starts their workflows; how many it stored. Those
   * its namespace's quota has no room for are left to a later pass, {@code refused} saying why.
   */
  private int submit(VmSetRow set, List<VmRow> missing, List<String> taken, List<String> refused) {
    int created = 0;
    for (int from = 0; from < missing.size(); from += CHUNK) {
      List<VmRow> stored;
      try {
        stored =
            storeFree(set, missing.subList(from, Math.min(missing.size(), from + CHUNK)), taken);
      } catch (QuotaExceeded e) {
        refused.add(e.getMessage());
        break;
      }
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
    remove(going, asked.askedLately(going, now));
    int removing = going.size();
    boolean unsuspended = set.keepsSuspended() && suspendReady(set, members);
    List<String> taken = new ArrayList<>();
    int missing = wanted - members.size();
    String refused = null;
    List<VmRow> stored;
    try {
      stored = missing <= 0 ? List.of() : certain.write(() -> storeNext(set, missing, taken));
    } catch (QuotaExceeded e) {
      stored = List.of();
      refused = waitingForQuota(e.getMessage());
    }
    starter.startSoon(stored);
    int created = stored.size();
    if (created > 0) {
      scheduler.wake("pool " + set.name() + ": " + created + " replicas submitted");
    }
    sets.recordMessage(
        set.name(),
        refused != null
            ? refused
            : taken.isEmpty()
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
        null,
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

  /** What a set says while its namespace's quota leaves no room for its next replicas. */
  private static String waitingForQuota(String refusal) {
    return "its next replicas wait for room in the quota: " + refusal;
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
    return replica(set, ordinal, clock.instant());
  }

  static VmRow replica(VmSetRow set, int ordinal, Instant now) {
    return VmRow.replica(
        VmSetRow.replicaName(set.name(), ordinal),
        0,
        set.isPool() ? set.template().withLease(null, null) : set.template(),
        new VmSetMembership(
            set.name(), ordinal, null, null, set.keepsSuspended(), set.templateVersion()),
        "waiting for the scheduler",
        now);
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
