package dev.rota.scheduler.term;

import dev.rota.store.Columns;
import dev.rota.store.AgentAddress;
import dev.rota.agents.AgentClient;
import dev.rota.agents.AgentRejectedException;
import dev.rota.scheduling.ActionRetries;
import dev.rota.agentapi.TaskSpec;
import dev.rota.scheduler.SchedulerWaker;
import dev.rota.settings.AgentCallSettings;
import dev.rota.settings.WorkerSettings;
import dev.rota.store.TermActionRepository;
import dev.rota.store.TermActionRow;
import dev.rota.store.VmRepository;
import dev.rota.store.VmRow;
import dev.rota.store.VmTaskRepository;
import dev.rota.store.VmTaskRow;
import dev.rota.store.WorkerRepository;
import dev.rota.store.WorkerRow;
import dev.rota.workflows.cluster.ApplyResult;
import dev.rota.model.TaskEventType;
import dev.rota.model.TaskState;
import dev.rota.model.WireName;
import io.micronaut.transaction.TransactionOperations;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The apply step: drains the outbox of term actions, in parallel. An action done, or one that can
 * never succeed, leaves the outbox; one an agent did not take stays for the next term.
 */
@Singleton
public class ActionApplier {
  private static final Logger log = LoggerFactory.getLogger(ActionApplier.class);
  static final int BATCH = 500;
  /** Calls at once to one agent: its own request threads (8) take no more; fewer or more were slower, as was one per thread. */
  static final int LANES_PER_AGENT = 8;
  /** How long one apply pass may go on taking further batches. */
  static final java.time.Duration PASS_BUDGET = java.time.Duration.ofSeconds(10);

  private final TermActionRepository actions;
  private final WorkerRepository workers;
  private final VmRepository vms;
  private final VmTaskRepository tasks;
  private final TaskObservations observations;
  private final AgentClient agents;
  private final VmNotifier notifier;
  private final NewsBeingTold beingTold;
  private final ExecutorService calls;
  private final AgentCallSettings agentCalls;
  private final WorkerSettings workerSettings;
  private final SchedulerWaker scheduler;
  private final Clock clock;
  private final TransactionOperations<Connection> tx;

  public ActionApplier(
      TermActionRepository actions,
      WorkerRepository workers,
      VmRepository vms,
      VmTaskRepository tasks,
      TaskObservations observations,
      AgentClient agents,
      VmNotifier notifier,
      NewsBeingTold beingTold,
      @Named(AgentCalls.EXECUTOR) ExecutorService calls,
      AgentCallSettings agentCalls,
      WorkerSettings workerSettings,
      SchedulerWaker scheduler,
      Clock clock,
      TransactionOperations<Connection> tx) {
    this.tx = tx;
    this.actions = actions;
    this.workers = workers;
    this.vms = vms;
    this.tasks = tasks;
    this.observations = observations;
    this.agents = agents;
    this.notifier = notifier;
    this.beingTold = beingTold;
    this.calls = calls;
    this.agentCalls = agentCalls;
    this.workerSettings = workerSettings;
    this.scheduler = scheduler;
    this.clock = clock;
  }

  /**
   * One pass over the outbox, oldest first, in batches: the calls to agents, then the news for VMs'
   * workflows. Each action is tried once, so one an agent did not take waits for the next term
   * instead of being retried at once. The pass stops taking further batches when it has taken
   * {@link #PASS_BUDGET}, leaving the rest for the next term, well inside the activity's timeout.
   * Calls go first: taken in plain id order, a term's news ahead of the next term's starts held them
   * back (at 1,000 workers, every other term told 1,000 VMs their placing and started none).
   */
  public ApplyResult apply() {
    Map<String, AgentAddress> endpoints = new HashMap<>();
    for (WorkerRow w : workers.findAll()) {
      endpoints.put(w.name(), w.agent());
    }
    Tally tally = new Tally();
    long deadline = System.nanoTime() + PASS_BUDGET.toNanos();
    Set<String> startedNow = ConcurrentHashMap.newKeySet();
    inBatches(actions::agentCallsAfter, deadline, batch -> callAgents(batch, endpoints, deadline, startedNow, tally));
    inBatches(actions::newsAfter, deadline, batch -> tell(batch, startedNow, tally));
    // An action that failed this often (news for a VM whose workflow is missing) waits for the next
    // interval's term rather than bringing terms every second.
    return new ApplyResult(tally.started.get(), tally.removed.get(), tally.notified.get(), tally.failed.get(),
        actions.pendingTriedFewerThan(ActionRetries.MAX_ATTEMPTS));
  }

  /** What a pass carried out, counted from many threads. */
  private static final class Tally {
    final AtomicInteger started = new AtomicInteger();
    final AtomicInteger removed = new AtomicInteger();
    final AtomicInteger notified = new AtomicInteger();
    final AtomicInteger failed = new AtomicInteger();
  }

  /** Takes {@code next}'s actions batch by batch until none are left or the deadline passed; the first batch always. */
  private static void inBatches(
      BiFunction<Long, Integer, List<TermActionRow>> next, long deadline, Consumer<List<TermActionRow>> apply) {
    List<TermActionRow> batch = next.apply(0L, BATCH);
    while (!batch.isEmpty()) {
      apply.accept(batch);
      if (batch.size() < BATCH || System.nanoTime() > deadline) {
        return;
      }
      batch = next.apply(batch.get(batch.size() - 1).id(), BATCH);
    }
  }

  private void callAgents(
      List<TermActionRow> batch, Map<String, AgentAddress> endpoints, long deadline, Set<String> startedNow, Tally tally) {
    // In parallel, at most LANES_PER_AGENT at once to one agent, each lane in order on one connection:
    // as many calls at once as there are threads would each open a connection to the busiest agents,
    // and a TLS handshake costs more than a call.
    Map<String, List<TermActionRow>> byWorker = new LinkedHashMap<>();
    for (TermActionRow a : batch) {
      byWorker.computeIfAbsent(a.worker(), w -> new ArrayList<>()).add(a);
    }
    List<List<TermActionRow>> lanes = new ArrayList<>();
    for (List<TermActionRow> ofWorker : byWorker.values()) {
      int first = lanes.size();
      for (int i = 0; i < ofWorker.size(); i++) {
        if (i < LANES_PER_AGENT) {
          lanes.add(new ArrayList<>());
        }
        lanes.get(first + i % LANES_PER_AGENT).add(ofWorker.get(i));
      }
    }
    StartsRead read = readStarts(batch);
    java.util.Queue<Long> done = new java.util.concurrent.ConcurrentLinkedQueue<>();
    List<Future<?>> running = new ArrayList<>();
    for (List<TermActionRow> lane : lanes) {
      running.add(calls.submit(() -> {
        RuntimeException agentFailed = null;
        for (TermActionRow a : lane) {
          if (System.nanoTime() > deadline) {
            return; // the rest waits for the next term, as a batch not taken would
          }
          if (agentFailed != null) {
            // A hung or erring agent costs one call's timeout a pass, not one per action; the rest
            // count as tried, so that each gives up after as many passes as it would alone.
            notCarriedOut(a, agentFailed, tally.failed);
            continue;
          }
          Attempt attempt = carryOut(a, endpoints, read, tally, done);
          if (attempt.started()) {
            startedNow.add(a.taskId());
          }
          agentFailed = attempt.agentFailed();
        }
      }));
    }
    awaitAll(running);
    takeOut(done);
  }

  /**
   * One signal per VM: its newest news, with which the notifier sends the VM's earlier news too. The
   * news of a task placed to be started waits for what the agent says of it, to go with that in one
   * signal, for as long as the probe interval: the agent's report of the start, or else the term's
   * probe of the agent, tells the next state within it. After that the VM hears of its placing alone
   * (a VM that takes long to boot). News an agent's report is telling at this moment is left to it
   * ({@link NewsBeingTold}).
   */
  private void tell(List<TermActionRow> batch, Set<String> startedNow, Tally tally) {
    Instant waitedEnough = clock.instant().minus(workerSettings.probeInterval());
    Map<String, List<TermActionRow>> newsByVm = new LinkedHashMap<>();
    for (TermActionRow a : batch) {
      newsByVm.computeIfAbsent(a.vm(), vm -> new ArrayList<>()).add(a);
    }
    java.util.Queue<Long> done = new java.util.concurrent.ConcurrentLinkedQueue<>();
    List<Future<?>> notifying = new ArrayList<>();
    for (List<TermActionRow> news : newsByVm.values()) {
      TermActionRow newest = news.get(news.size() - 1);
      if (startedNow.contains(newest.taskId()) || beingTold.held(newest.id())
          || (ofAStart(newest) && newest.createdAt().isAfter(waitedEnough))) {
        continue;
      }
      notifying.add(calls.submit(() -> {
        try {
          done.addAll(notifier.notify(newest));
        } catch (VmNotifier.WorkflowNotStartedYet e) {
          return; // not an attempt: its start hands the workflow the row, and the pass after tells what follows
        } catch (RuntimeException e) {
          // Left in the outbox: the next pass tells the workflow (at least once; it applies it once).
          log.debug("could not tell VM {}'s workflow: {}", newest.vm(), e.toString());
          tally.failed.incrementAndGet();
          if (newest.attempts() + 1 == ActionRetries.MAX_ATTEMPTS) {
            log.warn("VM {} has not been told of task {} ({}) after {} attempts, and will be: {}", newest.vm(),
                newest.taskId(), newest.event(), ActionRetries.MAX_ATTEMPTS, e.getMessage());
          }
          news.forEach(a -> actions.triedOnce(a.id())); // never dropped (ActionRetries); its detail is the event's message
          return;
        }
        tally.notified.incrementAndGet();
      }));
    }
    awaitAll(notifying);
    takeOut(done);
  }

  /** Whether the news is of a task placed with a start to carry out (placed, moved, failed over). */
  private static boolean ofAStart(TermActionRow news) {
    return WireName.parse(TaskEventType.class, news.event()).filter(TaskEventType::places).isPresent();
  }

  /**
   * Taken out together, one statement for the batch: should this process die first, the starts are
   * sent again (an agent takes a task it has once) and the news too (a workflow applies it once).
   */
  private void takeOut(java.util.Queue<Long> done) {
    if (!done.isEmpty()) {
      actions.doneAll(List.copyOf(done));
    }
  }

  /** What came of an action: the task started, or the agent failed to answer (a refusal is an answer); or neither. */
  private record Attempt(boolean started, RuntimeException agentFailed) {
    static final Attempt DONE = new Attempt(false, null);
  }

  /** The VMs and placed tasks a batch's starts are of, read in two queries rather than two a start. */
  private record StartsRead(Map<String, VmRow> vms, Map<String, VmTaskRow> tasks) {
    VmTaskRow taskOf(TermActionRow a) {
      return onItsWorker(a, tasks.get(taskRowId(a, vms.get(a.vm()))));
    }
  }

  private StartsRead readStarts(List<TermActionRow> batch) {
    Set<String> names = new java.util.HashSet<>();
    for (TermActionRow a : batch) {
      if (a.kind().equals(TermActionRow.START)) {
        names.add(a.vm());
      }
    }
    if (names.isEmpty()) {
      return new StartsRead(Map.of(), Map.of());
    }
    Map<String, VmRow> vmRows = new HashMap<>();
    vms.findByNameInList(names).forEach(v -> vmRows.put(v.name(), v));
    Set<String> taskIds = new java.util.HashSet<>();
    for (TermActionRow a : batch) {
      if (a.kind().equals(TermActionRow.START)) {
        taskIds.add(taskRowId(a, vmRows.get(a.vm())));
      }
    }
    Map<String, VmTaskRow> taskRows = new HashMap<>();
    tasks.findByIdInList(taskIds).forEach(t -> taskRows.put(t.id(), t));
    return new StartsRead(vmRows, taskRows);
  }

  /** Carries out a start or a removal; one carried out joins {@code done}, for the batch to take out. */
  private Attempt carryOut(
      TermActionRow a, Map<String, AgentAddress> endpoints, StartsRead read, Tally tally, java.util.Queue<Long> done) {
    AgentAddress endpoint = endpoints.get(a.worker());
    if (endpoint == null) {
      actions.done(a.id()); // the worker is gone, and its tasks with it
      return Attempt.DONE;
    }
    boolean startedIt = false;
    try {
      if (a.kind().equals(TermActionRow.START)) {
        VmRow vm = read.vms().get(a.vm());
        VmTaskRow task = read.taskOf(a);
        if (vm == null || task == null || !TaskState.SCHEDULED.wireName().equals(task.state())
            || !Snapshots.task(task).wantedBy(Snapshots.vm(vm, clock.instant()))) {
          actions.done(a.id()); // no longer meant to run there
          return Attempt.DONE;
        }
        agents.startTask(endpoint, a.taskId(), spec(vm), agentCalls.timeout());
        tally.started.incrementAndGet();
        startedIt = true;
      } else {
        agents.removeTask(endpoint, a.taskId(), agentCalls.removalTimeout());
        tally.removed.incrementAndGet();
        removed(a);
      }
      done.add(a.id());
    } catch (RuntimeException e) {
      notCarriedOut(a, e, tally.failed);
      return new Attempt(false, e instanceof AgentRejectedException ? null : e);
    }
    return new Attempt(startedIt, null);
  }

  /**
   * What the removal's answer proves (the task ended and its agent forgot it) is recorded at once: a move
   * it ends is over now, not once the worker's task list is next read. Should that write fail, the term
   * records the same from the list.
   */
  private void removed(TermActionRow a) {
    try {
      tx.executeWrite(status -> {
        observations.removedFrom(a.worker(), a.taskId(), clock.instant());
        return null;
      });
    } catch (RuntimeException e) {
      log.debug("task {} removed from {}; the term records it: {}", a.taskId(), a.worker(), e.toString());
    }
  }

  /** An action the agent did not carry out: tried again next pass, given back, failed or dropped, as {@link ActionRetries} says. */
  private void notCarriedOut(TermActionRow a, RuntimeException e, AtomicInteger failed) {
    failed.incrementAndGet();
    boolean refused = e instanceof AgentRejectedException;
    ActionRetries.Kind kind = a.kind().equals(TermActionRow.START) ? ActionRetries.Kind.START : ActionRetries.Kind.REMOVE;
    switch (ActionRetries.afterFailure(kind, refused, a.attempts())) {
      case FAIL_TASK -> refused(a, e);
      case GIVE_BACK -> giveBack(a, e);
      case DROP -> {
        if (!refused) {
          log.warn("dropping {} of task {} on {} after {} attempts: {}", a.kind(), a.taskId(), a.worker(),
              ActionRetries.MAX_ATTEMPTS, e.getMessage());
        }
        actions.done(a.id());
      }
      case RETRY -> actions.failedOnce(a.id(), Columns.truncate(String.valueOf(e.getMessage()), 2048));
    }
  }

  /** The agent refused the task (a 4xx: retrying cannot help): the task failed. */
  private void refused(TermActionRow a, RuntimeException e) {
    String message = "worker " + a.worker() + " refused task " + a.taskId() + ": " + e.getMessage();
    Instant now = clock.instant();
    endStart(a, task -> observations.reached(task, TaskState.FAILED, null, message, now));
  }

  /** The worker could not start the task: the VM waits for another placement, avoiding that worker. */
  private void giveBack(TermActionRow a, RuntimeException e) {
    Instant now = clock.instant();
    Instant avoidUntil = now.plus(workerSettings.flakyCooldown());
    String message =
        "could not start task " + a.taskId() + " on worker " + a.worker() + " after " + ActionRetries.START_ATTEMPTS + " tries ("
            + e.getMessage() + "); placing it elsewhere, avoiding " + a.worker() + " until " + avoidUntil;
    if (endStart(a, task -> observations.givenBack(task, message, avoidUntil, now))) {
      scheduler.wake("vm " + a.vm() + " given back by " + a.worker());
    }
  }

  /**
   * Ends a start action that did not start, and records what that means for its task (and so the
   * news for the VM's workflow, through the outbox) in the same transaction: a signal that fails is
   * sent again, so the workflow's restart policy (OnFailure) is never left unheard.
   */
  private boolean endStart(TermActionRow a, Function<VmTaskRow, Optional<TermActionRow>> change) {
    return tx.executeWrite(status -> {
      actions.done(a.id());
      VmTaskRow task = taskOf(a, vms.findById(a.vm()).orElse(null));
      return task != null && change.apply(task).isPresent();
    });
  }

  /** The placed task an action is about, on the action's worker; null when there is none (any more). */
  private VmTaskRow taskOf(TermActionRow a, VmRow vm) {
    return onItsWorker(a, tasks.findById(taskRowId(a, vm)).orElse(null));
  }

  /** The id of the record of the task an action is about: of its VM's submission, or (rows from before task events) the VM's. */
  private static String taskRowId(TermActionRow a, VmRow vm) {
    long vmSeq = a.vmSeq() != null ? a.vmSeq() : vm == null ? -1 : vm.seq();
    return VmTaskRow.id(vmSeq, a.taskId());
  }

  private static VmTaskRow onItsWorker(TermActionRow a, VmTaskRow task) {
    return task != null && task.worker().equals(a.worker()) ? task : null;
  }

  private static TaskSpec spec(VmRow vm) {
    return new TaskSpec(vm.name(), vm.restartCount(), vm.runtime(), vm.image(), vm.command(), vm.env(), vm.resources(), vm.guest(),
        vm.disconnect());
  }

  private static void awaitAll(List<Future<?>> futures) {
    for (Future<?> f : futures) {
      try {
        f.get();
      } catch (ExecutionException e) {
        throw new IllegalStateException("applying an action failed", e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while applying actions", e);
      }
    }
  }
}
