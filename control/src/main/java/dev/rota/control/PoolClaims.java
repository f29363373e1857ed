package dev.rota.control;

import dev.rota.core.model.VmStatus;
import dev.rota.store.CertainCommits;
import dev.rota.store.ChangeRepository;
import dev.rota.store.OutboxRepository;
import dev.rota.store.Sql;
import dev.rota.store.VmAccessTokenRepository;
import dev.rota.store.VmEventRepository;
import dev.rota.store.VmRepository;
import dev.rota.store.VmRow;
import dev.rota.store.VmSetRepository;
import dev.rota.store.VmSetRow;
import dev.rota.store.VmTaskRepository;
import dev.rota.store.WorkflowStartRepository;
import dev.rota.workflows.vmset.VmSetActivities;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands out a warm pool's ready replica as a user's VM. The claim is one transaction: the replica's
 * row, events, task records and pending calls take the user's name, and it leaves the pool; its
 * task runs on untouched on its worker under the replica's name, which the VM's tasks carry from
 * then on. Its workflow ends first (so that no run of the old name acts on it), and the new name's
 * is owed in the same transaction, started at once, and resumes the VM as it runs. A pool that
 * keeps its replicas suspended hands out a suspended one, pending from the claim's transaction on:
 * the next term places the task that resumes it. The pool's pass then makes its replacement, before
 * the answer: the next term places it.
 */
@Singleton
public class PoolClaims {
  private static final Logger log = LoggerFactory.getLogger(PoolClaims.class);

  private final VmSetRepository sets;
  private final VmRepository vms;
  private final VmEventRepository events;
  private final VmTaskRepository tasks;
  private final OutboxRepository outbox;
  private final VmAccessTokenRepository tokens;
  private final ChangeRepository changes;
  private final WorkflowStartRepository starts;
  private final CertainCommits certain;
  private final ControlWorkflows workflows;
  private final VmWorkflowStarter starter;
  private final VmSetActivitiesImpl passes;
  private final SubmissionGate gate;
  private final Clock clock;

  public PoolClaims(
      VmSetRepository sets,
      VmRepository vms,
      VmEventRepository events,
      VmTaskRepository tasks,
      OutboxRepository outbox,
      VmAccessTokenRepository tokens,
      ChangeRepository changes,
      WorkflowStartRepository starts,
      CertainCommits certain,
      ControlWorkflows workflows,
      VmWorkflowStarter starter,
      VmSetActivitiesImpl passes,
      SubmissionGate gate,
      Clock clock) {
    this.sets = sets;
    this.vms = vms;
    this.events = events;
    this.tasks = tasks;
    this.outbox = outbox;
    this.tokens = tokens;
    this.changes = changes;
    this.starts = starts;
    this.certain = certain;
    this.workflows = workflows;
    this.starter = starter;
    this.passes = passes;
    this.gate = gate;
    this.clock = clock;
  }

  /**
   * User data for the claimed VM's running guest: {@code value} itself, or the value of secret
   * {@code secret}.
   */
  public record UserData(String value, String secret) {}

  /** Pool {@code pool}; {@link NotFound} when there is none. */
  /** The namespace {@code pool} lives in, which the VMs claimed from it live in too. */
  public String namespaceOf(String pool) {
    return pool(pool).template().namespace();
  }

  private VmSetRow pool(String pool) {
    return sets.findById(pool)
        .filter(VmSetRow::isPool)
        .orElseThrow(() -> new NotFound("pool", pool));
  }

  /**
   * Claims a ready replica of {@code pool} as VM {@code name}: the VM as it now is. With {@code
   * userData} (null: none), the claim owes the replica's running task (or, for a suspended one, the
   * task that resumes it) that user data, in the same transaction: the next pass over the outbox
   * hands it to its agent, which writes it into the guest. {@link NotFound} without such a pool;
   * {@link Refused} when the name is taken, the pool is being deleted, its VMs take no user data
   * (not {@code qemu}), or none of its replicas is ready.
   */
  public VmRow claim(String pool, String name, UserData userData) {
    VmSetRow row = claimable(pool, name, userData);
    boolean suspended = row.keepsSuspended();
    String status = suspended ? VmStatus.SUSPENDED.wireName() : VmStatus.RUNNING.wireName();
    List<VmRow> ready = vms.poolReplicas(pool, status);
    for (VmRow replica : ready) {
      if (!replica.state().claimableInAPool(replica.awaitingReadiness(), suspended)) {
        continue;
      }
      workflows.endVm(replica.name(), "claimed from pool " + pool + " as VM " + name);
      VmRow claimed;
      try {
        claimed =
            certain.write(() -> rename(replica, row, name, status, userData, clock.instant()));
      } catch (RuntimeException e) {
        restore(replica);
        if (Sql.isUniqueViolation(e)) {
          throw new Refused("VM '" + name + "' already exists");
        }
        throw e;
      }
      if (claimed == null) {
        restore(replica); // taken by another claim meanwhile, or it stopped running
        continue;
      }
      starter.startSoon(List.of(claimed));
      if (userData != null || suspended) {
        wake(suspended ? "vm " + name + " resumes" : "user data for vm " + name);
      }
      refill(pool);
      log.info("vm {} claimed from pool {} (replica {})", name, pool, replica.name());
      return claimed;
    }
    throw noneReady(pool, ready.size(), status);
  }

  /**
   * The replica a claim of {@code pool} as VM {@code name} would take now, checked as {@link
   * #claim} checks; nothing is written.
   */
  public VmRow wouldClaim(String pool, String name, UserData userData) {
    VmSetRow row = claimable(pool, name, userData);
    String status =
        row.keepsSuspended() ? VmStatus.SUSPENDED.wireName() : VmStatus.RUNNING.wireName();
    List<VmRow> ready = vms.poolReplicas(pool, status);
    return ready.stream()
        .filter(r -> r.state().claimableInAPool(r.awaitingReadiness(), row.keepsSuspended()))
        .findFirst()
        .orElseThrow(() -> noneReady(pool, ready.size(), status));
  }

  private Refused noneReady(String pool, int ready, String status) {
    return new Refused(
        "pool '"
            + pool
            + "' has no replica ready to claim ("
            + ready
            + " "
            + status
            + ", "
            + (vms.replicasOf(pool).size() - ready)
            + " starting); try again shortly");
  }

  /** The pool a claim takes from, once the claim's checks pass. */
  private VmSetRow claimable(String pool, String name, UserData userData) {
    gate.check("VM '" + name + "'");
    VmSetRow row = pool(pool);
    if (row.deleting()) {
      throw new Refused("pool '" + pool + "' is being deleted");
    }
    String runtime = row.template().runtime();
    if (userData != null && !"qemu".equals(runtime)) {
      // Well-formed, but not for this pool: a conflict with what the pool is, as a missing replica
      // is.
      throw new Refused(
          "guest.userData: pool '"
              + pool
              + "' runs "
              + runtime
              + " VMs: only a qemu guest takes user data once it runs, through its guest agent");
    }
    if (vms.findById(name).isPresent()) {
      throw new Refused("VM '" + name + "' already exists");
    }
    return row;
  }

  /**
   * The rename, in the caller's transaction; null when the replica is no longer the pool's, or no
   * longer {@code status}. A suspended replica is pending from then on, as a user's start of a
   * suspended VM leaves it: its next task resumes it from the memory saved on its worker. The VM's
   * lease, the pool template's, begins now (a resumed one's when it runs again).
   */
  private VmRow rename(
      VmRow replica, VmSetRow row, String name, String status, UserData userData, Instant now) {
    String pool = row.name();
    boolean resumes = status.equals(VmStatus.SUSPENDED.wireName());
    Integer maxRun = row.template().maxRunSeconds();
    if (vms.claim(
            replica.name(),
            replica.seq(),
            pool,
            name,
            status,
            maxRun,
            maxRun == null ? null : row.template().onExpiry(),
            maxRun == null || resumes ? null : now.plusSeconds(maxRun))
        != 1) {
      return null;
    }
    int generation = replica.state().restartCount() + (resumes ? 1 : 0);
    String worker = resumes ? replica.notes().diskOn() : replica.state().worker();
    events.rename(replica.name(), name);
    tasks.rename(replica.name(), replica.seq(), name);
    outbox.renameVm(replica.name(), name);
    tokens.forget(replica.name(), replica.seq());
    changes.vmGone(replica.name(), now);
    events.append(
        name, now, "claimed", "claimed from pool " + pool + " as replica " + replica.name());
    if (resumes) {
      String why = "resuming as claimed, from its memory saved on worker " + worker;
      vms.requeue(name, replica.seq(), generation, why, null, now, null);
      events.append(name, now, "resumed", why);
    }
    starts.add(name, replica.seq(), now);
    if (userData != null) {
      // A resumed replica's task is placed on the worker that holds its memory when it has room,
      // as it most often has; where it is placed elsewhere, the delivery follows it there.
      outbox.addDelivery(
          worker,
          dev.rota.agentapi.TaskId.of(replica.taskName(), generation).toString(),
          name,
          replica.seq(),
          userData.value(),
          userData.secret(),
          now);
    }
    return vms.findById(name).orElseThrow();
  }

  /** A replica left unclaimed gets its workflow back (its row is its own still). */
  private void restore(VmRow replica) {
    vms.findById(replica.name())
        .filter(v -> v.seq() == replica.seq())
        .ifPresent(
            v -> {
              try {
                workflows.startVm(v, true);
              } catch (RuntimeException e) {
                // The keeper's look starts it again.
                log.debug("replica {}: workflow left to the keeper: {}", v.name(), e.toString());
              }
            });
  }

  /** The next term comes now, to carry out what the claim owes; else it comes in its time. */
  private void wake(String reason) {
    try {
      workflows.wakeScheduler(reason);
    } catch (RuntimeException e) {
      log.debug("scheduler not woken ({}): {}", reason, e.toString());
    }
  }

  /** The pool makes the claimed replica's successor now; its workflow is told in case not. */
  private void refill(String pool) {
    try {
      passes.reconcile(new VmSetActivities.SetRef(pool));
    } catch (RuntimeException e) {
      log.debug("pool {}: refill left to its workflow: {}", pool, e.toString());
    }
    try {
      workflows.setChanged(pool);
    } catch (RuntimeException e) {
      log.debug("pool {}: its workflow not told: {}", pool, e.toString());
    }
  }
}
