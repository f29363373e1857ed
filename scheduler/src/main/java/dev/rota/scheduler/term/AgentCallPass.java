package dev.rota.scheduler.term;

import dev.rota.agentapi.AgentRejectedException;
import dev.rota.agentapi.GuestSpec;
import dev.rota.agentapi.SecretRefs;
import dev.rota.agentapi.TaskSpec;
import dev.rota.agentapi.TaskStarts;
import dev.rota.core.model.TaskState;
import dev.rota.core.scheduling.ActionRetries;
import dev.rota.scheduler.SchedulerWaker;
import dev.rota.scheduler.agents.AgentClient;
import dev.rota.scheduler.settings.AgentCallSettings;
import dev.rota.scheduler.settings.WorkerSettings;
import dev.rota.scheduler.term.OutboxPasses.Tally;
import dev.rota.store.AgentAddress;
import dev.rota.store.Columns;
import dev.rota.store.OutboxRepository;
import dev.rota.store.OutboxRow;
import dev.rota.store.SecretValues;
import dev.rota.store.VmRepository;
import dev.rota.store.VmRow;
import dev.rota.store.VmTaskRepository;
import dev.rota.store.VmTaskRow;
import dev.rota.store.VmTemplate;
import io.micronaut.transaction.TransactionOperations;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The apply step's first pass: the outbox's calls to agents (starts and removals), in parallel, at
 * most {@link #LANES_PER_AGENT} at once to one agent, a start after the removal that frees its task
 * id. A call an agent did not take stays for the next term, or is given back, failed or dropped as
 * {@link ActionRetries} says.
 */
@Singleton
public class AgentCallPass {
  private static final Logger log = LoggerFactory.getLogger(AgentCallPass.class);

  /**
   * Calls at once to one agent: its own request threads (8) take no more; fewer or more were
   * slower, as was one per thread.
   */
  static final int LANES_PER_AGENT = 8;

  private final OutboxRepository actions;
  private final VmRepository vms;
  private final VmTaskRepository tasks;
  private final TaskObservations observations;
  private final AgentClient agents;
  private final ExecutorService calls;
  private final AgentCallSettings agentCalls;
  private final WorkerSettings workerSettings;
  private final SchedulerWaker scheduler;
  private final Clock clock;
  private final TransactionOperations<Connection> tx;
  private final SecretValues secretValues;
  private final RemovedTasks removedTasks;

  /** How long a token to copy a disk holds: long enough for a large disk at disk speed. */
  static final java.time.Duration DISK_TOKEN = java.time.Duration.ofHours(6);

  private final dev.rota.store.VolumeRepository volumes;
  private final dev.rota.store.VmEventRepository events;

  public AgentCallPass(
      OutboxRepository actions,
      VmRepository vms,
      VmTaskRepository tasks,
      TaskObservations observations,
      AgentClient agents,
      @Named(AgentCalls.EXECUTOR) ExecutorService calls,
      AgentCallSettings agentCalls,
      WorkerSettings workerSettings,
      SchedulerWaker scheduler,
      Clock clock,
      TransactionOperations<Connection> tx,
      SecretValues secretValues,
      RemovedTasks removedTasks,
      dev.rota.store.VolumeRepository volumes,
      dev.rota.store.VmEventRepository events) {
    this.volumes = volumes;
    this.events = events;
    this.secretValues = secretValues;
    this.removedTasks = removedTasks;
    this.actions = actions;
    this.vms = vms;
    this.tasks = tasks;
    this.observations = observations;
    this.agents = agents;
    this.calls = calls;
    this.agentCalls = agentCalls;
    this.workerSettings = workerSettings;
    this.scheduler = scheduler;
    this.clock = clock;
    this.tx = tx;
  }

  /**
   * Carries out one batch of calls, those it can before {@code deadline}; notes the tasks it
   * started in {@code startedNow}.
   */
  void callAgents(
      List<OutboxRow> batch,
      Map<String, AgentAddress> endpoints,
      long deadline,
      Set<String> startedNow,
      Tally tally) {
    // In parallel, at most LANES_PER_AGENT calls at once to one agent, each lane in order on one
    // connection: as many calls at once as there are threads would each open a connection to the
    // busiest agents, and a TLS handshake costs more than a call. A worker's starts go in calls of
    // up to TaskStarts.MOST, so that a burst costs a call per worker rather than one per task.
    List<List<List<OutboxRow>>> lanes = new ArrayList<>();
    for (List<List<OutboxRow>> ofWorker : callsByWorker(batch)) {
      lanes.addAll(lanes(ofWorker));
    }
    StartsRead read = readStarts(batch);
    java.util.Queue<Long> done = new java.util.concurrent.ConcurrentLinkedQueue<>();
    List<Future<?>> running = new ArrayList<>();
    for (List<List<OutboxRow>> lane : lanes) {
      running.add(
          calls.submit(() -> callInTurn(lane, endpoints, deadline, read, tally, done, startedNow)));
    }
    OutboxPasses.awaitAll(running);
    OutboxPasses.takeOut(actions, done);
    if (tally.roomFreed.getAndSet(false)) {
      scheduler.roomFreed("tasks removed");
    }
  }

  /**
   * One worker's calls spread over at most {@link #LANES_PER_AGENT} lanes, in order. A start of a
   * task id that a removal in the batch frees (a VM made again under the name of one deleted while
   * its worker was away) goes alone, after that removal in its lane: before it, the agent would
   * refuse the id as taken. The calls on one running task (its removals, a delivery of its user
   * data) share a lane, in order: a delivery asked before the removal comes first, and the removal
   * after it wins.
   */
  static List<List<List<OutboxRow>>> lanes(List<List<OutboxRow>> calls) {
    java.util.Set<String> removedIds = new java.util.HashSet<>();
    for (List<OutboxRow> call : calls) {
      if (removes(call.get(0))) {
        removedIds.add(call.get(0).taskId());
      }
    }
    List<List<OutboxRow>> inTurn = new ArrayList<>();
    List<OutboxRow> afterRemoval = new ArrayList<>();
    for (List<OutboxRow> call : calls) {
      if (call.get(0).kind().equals(OutboxRow.START)) {
        List<OutboxRow> free = call.stream().filter(a -> !removedIds.contains(a.taskId())).toList();
        call.stream().filter(a -> removedIds.contains(a.taskId())).forEach(afterRemoval::add);
        if (!free.isEmpty()) {
          inTurn.add(free);
        }
      } else {
        inTurn.add(call);
      }
    }
    List<List<List<OutboxRow>>> lanes = new ArrayList<>();
    Map<String, Integer> laneOfTask = new HashMap<>();
    int next = 0;
    for (List<OutboxRow> call : inTurn) {
      String taskId = call.get(0).taskId();
      boolean onATask = !call.get(0).kind().equals(OutboxRow.START);
      Integer lane = onATask ? laneOfTask.get(taskId) : null;
      if (lane == null) {
        lane = next++ % LANES_PER_AGENT;
        if (lane == lanes.size()) {
          lanes.add(new ArrayList<>());
        }
      }
      lanes.get(lane).add(call);
      if (onATask) {
        laneOfTask.put(taskId, lane);
      }
    }
    for (OutboxRow start : afterRemoval) {
      lanes.get(laneOfTask.get(start.taskId())).add(List.of(start));
    }
    return lanes;
  }

  /** Whether the call removes its task (its logs kept, or discarded with it). */
  private static boolean removes(OutboxRow a) {
    return a.kind().equals(OutboxRow.REMOVE) || a.kind().equals(OutboxRow.DISCARD);
  }

  /**
   * Carries out a lane's calls one after another, while the deadline allows; once its agent did not
   * answer ({@code agentFailed}, maybe from the start), the rest only count as tried. Returns the
   * agent's failure, or null.
   */
  private RuntimeException callInTurn(
      List<List<OutboxRow>> lane,
      Map<String, AgentAddress> endpoints,
      long deadline,
      StartsRead read,
      Tally tally,
      java.util.Queue<Long> done,
      Set<String> startedNow) {
    RuntimeException agentFailed = null;
    for (List<OutboxRow> call : lane) {
      if (System.nanoTime() > deadline) {
        return agentFailed; // the rest waits for the next term, as a batch not taken would
      }
      if (agentFailed != null) {
        // A hung or erring agent costs one call's timeout a pass, not one per action; the rest
        // count as tried, so that each gives up after as many passes as it would alone.
        for (OutboxRow a : call) {
          notCarriedOut(a, agentFailed, tally.failed);
        }
        continue;
      }
      agentFailed =
          switch (call.get(0).kind()) {
            case OutboxRow.START -> startAll(call, endpoints, read, tally, done, startedNow);
            case OutboxRow.DELIVER -> deliver(call.get(0), endpoints, tally, done);
            default -> remove(call.get(0), endpoints, tally, done);
          };
    }
    return agentFailed;
  }

  /** The fewest starts a call takes while a worker has more: fewer calls, each at once. */
  static final int STARTS_PER_CALL = 16;

  /**
   * Each worker's calls: its removals one a call, then its starts in as few calls as its lanes take
   * at once, each of {@link #STARTS_PER_CALL} to {@link TaskStarts#MOST} (the agent starts a call's
   * tasks one after another, its calls at once).
   */
  static java.util.Collection<List<List<OutboxRow>>> callsByWorker(List<OutboxRow> batch) {
    Map<String, List<List<OutboxRow>>> byWorker = new LinkedHashMap<>();
    Map<String, List<OutboxRow>> startsOf = new LinkedHashMap<>();
    for (OutboxRow a : batch) {
      List<List<OutboxRow>> calls = byWorker.computeIfAbsent(a.worker(), w -> new ArrayList<>());
      if (a.kind().equals(OutboxRow.START)) {
        startsOf.computeIfAbsent(a.worker(), w -> new ArrayList<>()).add(a);
      } else {
        calls.add(List.of(a));
      }
    }
    startsOf.forEach(
        (worker, starts) -> {
          int perCall =
              Math.min(
                  TaskStarts.MOST,
                  Math.max(
                      STARTS_PER_CALL, (starts.size() + LANES_PER_AGENT - 1) / LANES_PER_AGENT));
          for (int from = 0; from < starts.size(); from += perCall) {
            byWorker.get(worker).add(starts.subList(from, Math.min(starts.size(), from + perCall)));
          }
        });
    return byWorker.values();
  }

  /**
   * Carries out starts on one worker in one call; those carried out join {@code done}, for the
   * batch to take out, and their tasks {@code startedNow}. Returns the failure when the agent did
   * not answer, else null.
   */
  private RuntimeException startAll(
      List<OutboxRow> starts,
      Map<String, AgentAddress> endpoints,
      StartsRead read,
      Tally tally,
      java.util.Queue<Long> done,
      Set<String> startedNow) {
    AgentAddress endpoint = endpoints.get(starts.get(0).worker());
    List<OutboxRow> asked = new ArrayList<>();
    List<TaskStarts.Item> items = new ArrayList<>();
    SecretValues.Opened secrets = secretValues.open(secretsOf(starts, read));
    for (OutboxRow a : starts) {
      VmRow vm = read.vms().get(a.vm());
      if (endpoint == null || !stillWanted(a, vm, read.taskOf(a))) {
        done.add(a.id()); // its worker is gone, or it is no longer meant to run there
        continue;
      }
      TaskSpec spec;
      try {
        // The agent that holds what the VM keeps, when it moves with it here; null when it does
        // not, or that worker is no longer registered (the copy then fails, saying so).
        AgentAddress holder = moves(vm, a.worker()) ? endpoints.get(vm.notes().diskFrom()) : null;
        spec =
            spec(vm, secrets, a.worker(), diskSource(vm, a.worker(), holder), volumes(vm, holder));
      } catch (SecretValues.Unavailable e) {
        failStart(a, "cannot start task " + a.taskId() + ": its " + e.getMessage());
        done.add(a.id());
        continue;
      }
      asked.add(a);
      items.add(new TaskStarts.Item(a.taskId(), spec));
    }
    if (asked.isEmpty()) {
      return null;
    }
    List<TaskStarts.Outcome> outcomes;
    try {
      outcomes = agents.startTasks(endpoint, items, agentCalls.timeout());
    } catch (RuntimeException e) {
      for (OutboxRow a : asked) {
        notCarriedOut(a, e, tally.failed);
      }
      return e instanceof AgentRejectedException ? null : e;
    }
    for (int i = 0; i < asked.size(); i++) {
      OutboxRow a = asked.get(i);
      TaskStarts.Outcome outcome = outcomes.get(i);
      if (outcome.started()) {
        if (items.get(i).spec().resumes()) {
          // The agent resumes it once: a later task boots from its disk.
          vms.memoryUsed(a.vm(), items.get(i).spec().submission());
        }
        tally.started.incrementAndGet();
        startedNow.add(a.taskId());
        done.add(a.id());
      } else {
        notCarriedOut(
            a, new AgentRejectedException(outcome.status(), outcome.detail()), tally.failed);
      }
    }
    return null;
  }

  /** Whether a start is still meant: its VM wants its task, still scheduled on that worker. */
  private boolean stillWanted(OutboxRow a, VmRow vm, VmTaskRow task) {
    return vm != null
        && task != null
        && TaskState.SCHEDULED.wireName().equals(task.state())
        && Snapshots.task(task).wantedBy(Snapshots.vm(vm, clock.instant()));
  }

  /**
   * The VMs and placed tasks a batch's starts are of, read in two queries rather than two a start.
   */
  private record StartsRead(Map<String, VmRow> vms, Map<String, VmTaskRow> tasks) {
    VmTaskRow taskOf(OutboxRow a) {
      return onItsWorker(a, tasks.get(taskRowId(a, vms.get(a.vm()))));
    }
  }

  private StartsRead readStarts(List<OutboxRow> batch) {
    Set<String> names = new java.util.HashSet<>();
    for (OutboxRow a : batch) {
      if (a.kind().equals(OutboxRow.START)) {
        names.add(a.vm());
      }
    }
    if (names.isEmpty()) {
      return new StartsRead(Map.of(), Map.of());
    }
    Map<String, VmRow> vmRows = new HashMap<>();
    vms.findByNameInList(names).forEach(v -> vmRows.put(v.name(), v));
    Set<String> taskIds = new java.util.HashSet<>();
    for (OutboxRow a : batch) {
      if (a.kind().equals(OutboxRow.START)) {
        taskIds.add(taskRowId(a, vmRows.get(a.vm())));
      }
    }
    Map<String, VmTaskRow> taskRows = new HashMap<>();
    tasks.findByIdInList(taskIds).forEach(t -> taskRows.put(t.id(), t));
    return new StartsRead(vmRows, taskRows);
  }

  /**
   * Carries out a removal; one carried out joins {@code done}, for the batch to take out. Returns
   * the failure when the agent did not answer, else null.
   */
  private RuntimeException remove(
      OutboxRow a, Map<String, AgentAddress> endpoints, Tally tally, java.util.Queue<Long> done) {
    AgentAddress endpoint = endpoints.get(a.worker());
    if (endpoint == null) {
      actions.done(a.id()); // the worker is gone, and its tasks with it
      return null;
    }
    try {
      agents.removeTask(
          endpoint,
          a.taskId(),
          a.vmSeq(),
          a.kind().equals(OutboxRow.DISCARD),
          agentCalls.removalTimeout());
      tally.removed.incrementAndGet();
      if (removedTasks.removed(a.worker(), a.taskId())) {
        tally.roomFreed.set(true);
      }
      done.add(a.id());
      return null;
    } catch (RuntimeException e) {
      notCarriedOut(a, e, tally.failed);
      return e instanceof AgentRejectedException ? null : e;
    }
  }

  /**
   * Hands a claimed VM's running task its user data; one carried out joins {@code done}, and the
   * VM's events say so. Returns the failure when the agent did not answer, else null.
   */
  private RuntimeException deliver(
      OutboxRow a, Map<String, AgentAddress> endpoints, Tally tally, java.util.Queue<Long> done) {
    AgentAddress endpoint = endpoints.get(a.worker());
    if (endpoint == null) {
      notDelivered(a, "its worker " + a.worker() + " is gone");
      return null;
    }
    byte[] userData;
    try {
      userData = userData(a).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    } catch (SecretValues.Unavailable e) {
      notDelivered(a, e.getMessage());
      return null;
    }
    try {
      agents.deliverUserData(
          endpoint, a.taskId(), a.vmSeq(), userData, agentCalls.deliveryTimeout());
      events.append(
          a.vm(), clock.instant(), USER_DATA, "user data delivered to task " + a.taskId());
      done.add(a.id());
      return null;
    } catch (RuntimeException e) {
      notCarriedOut(a, e, tally.failed);
      return e instanceof AgentRejectedException ? null : e;
    }
  }

  /**
   * Whether the task a delivery is for, not on its worker, is still to come: placed, and live, but
   * not started there yet, or placed on another worker (a claimed replica that resumes elsewhere
   * than where its memory was saved), where the delivery is sent from now on; or not placed yet,
   * its VM's next task. Any other is not coming.
   */
  private boolean coming(OutboxRow a) {
    if (a.vmSeq() == null) {
      return false;
    }
    Optional<VmTaskRow> placed = tasks.findById(VmTaskRow.id(a.vmSeq(), a.taskId()));
    if (placed.isPresent()) {
      VmTaskRow task = placed.get();
      if (!task.worker().equals(a.worker())) {
        actions.redirect(a.id(), task.worker());
      }
      return dev.rota.core.model.WireName.parse(TaskState.class, task.state())
          .map(TaskState::live)
          .orElse(false);
    }
    return vms.findById(a.vm())
        .filter(
            v ->
                v.seq() == a.vmSeq()
                    && dev.rota.agentapi.TaskId.of(v.taskName(), v.state().restartCount())
                        .toString()
                        .equals(a.taskId()))
        .isPresent();
  }

  /** The VM's event of its claim's user data. */
  static final String USER_DATA = "user-data";

  /** The user data a delivery carries: its own, or its secret's value. */
  private String userData(OutboxRow a) {
    if (a.secret() == null) {
      return a.payload();
    }
    return secretValues.open(List.of(a.secret())).of(List.of(a.secret())).get(a.secret());
  }

  /** A delivery given up: taken out, and the VM's events say why. */
  private void notDelivered(OutboxRow a, String why) {
    boolean first =
        tx.executeWrite(
            status -> {
              if (actions.takeOut(a.id()) == 0) {
                return false; // another pass gave it up meanwhile, and said so
              }
              events.append(
                  a.vm(),
                  clock.instant(),
                  USER_DATA,
                  Columns.truncate(
                      "user data not delivered to task " + a.taskId() + ": " + why, 4096));
              return true;
            });
    if (first) {
      log.warn("vm {}: user data not delivered to task {}: {}", a.vm(), a.taskId(), why);
    }
  }

  /**
   * An action the agent did not carry out: tried again next pass, given back, failed or dropped, as
   * {@link ActionRetries} says.
   */
  private void notCarriedOut(OutboxRow a, RuntimeException e, AtomicInteger failed) {
    boolean refused = e instanceof AgentRejectedException r && refused(a, r.status());
    failed.incrementAndGet();
    ActionRetries.Kind kind =
        switch (a.kind()) {
          case OutboxRow.START -> ActionRetries.Kind.START;
          case OutboxRow.DELIVER -> ActionRetries.Kind.DELIVER;
          default -> ActionRetries.Kind.REMOVE;
        };
    switch (ActionRetries.afterFailure(
        kind, refused, a.attempts(), java.time.Duration.between(a.createdAt(), clock.instant()))) {
      case FAIL_TASK -> refused(a, e);
      case GIVE_BACK -> giveBack(a, e);
      case DROP -> {
        if (kind == ActionRetries.Kind.DELIVER) {
          notDelivered(
              a,
              refused
                  ? e.getMessage()
                  : "its guest did not take it in "
                      + ActionRetries.DELIVERY_PATIENCE.toMinutes()
                      + " minutes: "
                      + e.getMessage());
          return;
        }
        if (!refused) {
          log.warn(
              "dropping {} of task {} on {} after {} attempts: {}",
              a.kind(),
              a.taskId(),
              a.worker(),
              ActionRetries.MAX_ATTEMPTS,
              e.getMessage());
        }
        actions.done(a.id());
      }
      case RETRY ->
          actions.failedOnce(a.id(), Columns.truncate(String.valueOf(e.getMessage()), 2048));
    }
  }

  /**
   * Whether the agent's answer to an action refuses it for good (a 4xx: retrying cannot help), or
   * is one worth trying again. A 409 is the task id held by a task of a VM deleted under the same
   * name: no fault of this task's, and gone once the scheduler has removed that one. TOO_LATE is a
   * start that reached its agent after its deadline, sent again with a new one. A 404 to a delivery
   * is its task not on that worker yet, while the task is still to come ({@link #coming}).
   */
  private boolean refused(OutboxRow a, int status) {
    return switch (status) {
      case 409, TaskStarts.TOO_LATE -> false;
      case 404 -> !(OutboxRow.DELIVER.equals(a.kind()) && coming(a));
      default -> true;
    };
  }

  /** The agent refused the task (a 4xx: retrying cannot help): the task failed. */
  private void refused(OutboxRow a, RuntimeException e) {
    failStart(a, "worker " + a.worker() + " refused task " + a.taskId() + ": " + e.getMessage());
  }

  /** The task failed before it ran, as {@code message} says: for its VM's restart policy. */
  private void failStart(OutboxRow a, String message) {
    Instant now = clock.instant();
    endStart(a, task -> observations.reached(task, TaskState.FAILED, null, message, now));
  }

  /**
   * The worker could not start the task: the VM waits for another placement, avoiding that worker.
   */
  private void giveBack(OutboxRow a, RuntimeException e) {
    Instant now = clock.instant();
    Instant avoidUntil = now.plus(workerSettings.flakyCooldown());
    String message =
        "could not start task "
            + a.taskId()
            + " on worker "
            + a.worker()
            + " after "
            + ActionRetries.START_ATTEMPTS
            + " tries ("
            + e.getMessage()
            + "); placing it elsewhere, avoiding "
            + a.worker()
            + " until "
            + avoidUntil;
    if (endStart(a, task -> observations.givenBack(task, message, avoidUntil, now))) {
      scheduler.wake("vm " + a.vm() + " given back by " + a.worker());
    }
  }

  /**
   * Ends a start action that did not start, and records what that means for its task (and so the
   * news for the VM's workflow, through the outbox) in the same transaction: a signal that fails is
   * sent again, so the workflow's restart policy (OnFailure) is never left unheard.
   */
  private boolean endStart(OutboxRow a, Function<VmTaskRow, Optional<OutboxRow>> change) {
    return tx.executeWrite(
        status -> {
          actions.done(a.id());
          VmTaskRow task = taskOf(a, vms.findById(a.vm()).orElse(null));
          return task != null && change.apply(task).isPresent();
        });
  }

  /**
   * The placed task an action is about, on the action's worker; null when there is none (any more).
   */
  private VmTaskRow taskOf(OutboxRow a, VmRow vm) {
    return onItsWorker(a, tasks.findById(taskRowId(a, vm)).orElse(null));
  }

  /**
   * The id of the record of the task an action is about: of its VM's submission, or (rows from
   * before task events) the VM's.
   */
  private static String taskRowId(OutboxRow a, VmRow vm) {
    long vmSeq = a.vmSeq() != null ? a.vmSeq() : vm == null ? -1 : vm.seq();
    return VmTaskRow.id(vmSeq, a.taskId());
  }

  private static VmTaskRow onItsWorker(OutboxRow a, VmTaskRow task) {
    return task != null && task.worker().equals(a.worker()) ? task : null;
  }

  /** The secrets the batch's VMs refer to: opened once for all of them. */
  private static Set<String> secretsOf(List<OutboxRow> starts, StartsRead read) {
    Set<String> names = new java.util.TreeSet<>();
    for (OutboxRow a : starts) {
      VmRow vm = read.vms().get(a.vm());
      if (vm != null && !SecretRefs.none(vm.spec().secrets())) {
        names.addAll(vm.spec().secrets().names());
      }
    }
    return names;
  }

  /**
   * Where the VM's persistent disk is copied from when it moves with it to {@code worker}: the
   * agent that holds it, with a token for that disk alone; null when it is not moving.
   */
  private dev.rota.agentapi.DiskSource diskSource(VmRow vm, String worker, AgentAddress holder) {
    if (!moves(vm, worker)) {
      return null;
    }
    if (holder == null) {
      return new dev.rota.agentapi.DiskSource(vm.notes().diskFrom(), null, null, null);
    }
    return new dev.rota.agentapi.DiskSource(
        vm.notes().diskFrom(),
        holder.endpoint(),
        token(holder, vm.diskId()),
        holder.certificateSha256());
  }

  /** Whether the VM moves with what it keeps on its worker to {@code worker}. */
  private static boolean moves(VmRow vm, String worker) {
    String from = vm.notes().diskFrom();
    return from != null
        && !from.equals(worker)
        && (vm.spec().persistentDisk() || vm.notes().memorySaved());
  }

  /** A token for disk or volume {@code id} on {@code holder}; null for an agent that asks none. */
  private String token(AgentAddress holder, String id) {
    return holder.secret() == null
        ? null
        : dev.rota.agentapi.DiskToken.mint(
            holder.secret(), id, clock.instant().plus(DISK_TOKEN).getEpochSecond());
  }

  /**
   * The data volumes the VM mounts, in its spec's order, each with a token for its copy from {@code
   * holder} when the VM moves with them.
   */
  private List<dev.rota.agentapi.VolumeSpec> volumes(VmRow vm, AgentAddress holder) {
    List<dev.rota.store.VolumeMount> mounts = vm.spec().volumes();
    if (mounts.isEmpty()) {
      return List.of();
    }
    Map<String, dev.rota.store.VolumeRow> rows = new java.util.HashMap<>();
    volumes
        .findHeldByNameInList(mounts.stream().map(dev.rota.store.VolumeMount::name).toList())
        .forEach(r -> rows.put(r.name(), r));
    List<dev.rota.agentapi.VolumeSpec> specs = new ArrayList<>();
    for (dev.rota.store.VolumeMount m : mounts) {
      dev.rota.store.VolumeRow r = rows.get(m.name());
      if (r == null) {
        continue; // deleted under it: it mounts what is left
      }
      specs.add(
          new dev.rota.agentapi.VolumeSpec(
              r.volumeId(),
              r.name(),
              r.sizeGi(),
              m.mountPath(),
              holder == null ? null : token(holder, r.volumeId())));
    }
    return specs;
  }

  /**
   * What the VM's agent is sent: its spec, with the values of the secrets it refers to, opened now
   * and never stored with it.
   */
  private static TaskSpec spec(
      VmRow vm,
      SecretValues.Opened secrets,
      String worker,
      dev.rota.agentapi.DiskSource diskFrom,
      List<dev.rota.agentapi.VolumeSpec> volumes) {
    VmTemplate t = vm.spec();
    Map<String, String> env = t.env();
    GuestSpec guest = t.guest();
    SecretRefs refs = SecretRefs.none(t.secrets()) ? null : t.secrets();
    if (refs != null) {
      Map<String, String> values = secrets.of(refs.names());
      env = new java.util.TreeMap<>(env);
      for (Map.Entry<String, String> e : refs.env().entrySet()) {
        env.put(e.getKey(), values.get(e.getValue()));
      }
      GuestSpec g = guest == null ? GuestSpec.NONE : guest;
      guest =
          new GuestSpec(
              g.kernel(),
              g.initrd(),
              g.kernelArgs(),
              refs.userData() != null ? values.get(refs.userData()) : g.userData(),
              g.sshKeys(),
              refs.startupScript() != null ? values.get(refs.startupScript()) : g.startupScript());
    }
    return new TaskSpec(
        vm.name(),
        vm.state().restartCount(),
        t.runtime(),
        t.image(),
        t.command(),
        env,
        t.resources(),
        guest,
        t.disconnect(),
        t.ports().isEmpty() ? null : t.ports(),
        vm.seq(),
        t.network(),
        t.checks(),
        refs,
        t.persistentDisk() || t.diskSizeGi() != null || diskFrom != null
            ? new dev.rota.agentapi.DiskSpec(
                vm.diskId(),
                t.persistentDisk(),
                t.diskSizeGi(),
                diskFrom,
                volumes.isEmpty() ? null : volumes)
            : null,
        vm.notes().memorySaved() && worker.equals(vm.notes().diskOn()) ? Boolean.TRUE : null,
        arrives(vm, worker) ? Boolean.TRUE : null);
  }

  /**
   * Whether the task is a live move's new copy: it boots nothing, and takes the running VM, its
   * memory and disk, from the old copy on the worker the disk comes from.
   */
  private static boolean arrives(VmRow vm, String worker) {
    String from = vm.notes().movingFrom();
    return vm.spec().liveMigration()
        && from != null
        && from.equals(vm.notes().diskFrom())
        && !from.equals(worker);
  }
}
