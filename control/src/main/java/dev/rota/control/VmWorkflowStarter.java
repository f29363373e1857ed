package dev.rota.control;

import dev.rota.scheduler.DaemonThreads;
import dev.rota.scheduler.temporal.TemporalDeadlines;
import dev.rota.store.BatchStatement;
import dev.rota.store.CertainCommits;
import dev.rota.store.OutboxRepository;
import dev.rota.store.VmRepository;
import dev.rota.store.VmRow;
import dev.rota.store.WorkflowStartRepository;
import dev.rota.store.WorkflowStartRow;
import io.micronaut.transaction.TransactionOperations;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts the workflows owed to submitted VMs ({@code workflow_starts}, written with each
 * submission): a submission is answered once stored, and its VM is placed and run meanwhile, so
 * that neither waits for Temporal (on the CLI's dev server a start is a round trip and a SQLite
 * commit, and submissions that waited for their starts went no faster than those). This host starts
 * its own submissions {@code rota.vms.workflow-start-delay} (2 s, and up to {@link #GATHER} more)
 * after they were stored, and a VM still pending or scheduled then another delay later, up to
 * fifteen delays: a VM does not wait for its workflow, so its start is left out of the burst that
 * places and runs it, and by then the row shows the VM running, which the start hands over instead
 * of signals (a workflow started before its VM was placed is signalled its placement and its start:
 * three actions where one does). Every host also takes, every {@link #SWEEP_EVERY}, starts owed for
 * longer than {@link #OWED_FOR} that it is not making itself (a host that died with them, Temporal
 * out of reach, or a burst larger than its host starts in that time). A host claims the starts it
 * waits to make until it looks again, and each chunk of starts for {@link #CLAIM} just before it
 * makes them, and leaves those another host's claim holds: each start is made by one host, and a
 * burst's starts are shared between the hosts.
 *
 * <p>Each workflow is started with its VM's row as it is when started, which may be newer than the
 * submission (placed, running): the workflow takes it as a restored one does, and the news the row
 * already shows leaves the outbox unsent, as the workflow would ignore it. A start that finds a
 * workflow open under the name is done if that workflow is of this submission (its memo says so: an
 * earlier try), and owed still if it is of a deleted VM of that name that is closing.
 */
@Singleton
public class VmWorkflowStarter {
  private static final Logger log = LoggerFactory.getLogger(VmWorkflowStarter.class);
  public static final Duration SWEEP_EVERY = Duration.ofSeconds(5);
  static final Duration OWED_FOR = Duration.ofSeconds(10);
  private static final int SWEEP_BATCH = 500;
  static final Duration START_DEADLINE = Duration.ofSeconds(5);

  private final ControlWorkflows workflows;
  private final WorkflowStartRepository starts;
  private final VmRepository vms;
  private final dev.rota.store.VmTaskRepository tasks;
  private final CertainCommits certain;
  private final TransactionOperations<Connection> tx;
  private final Clock clock;
  private final Duration delay;
  private final TemporalDeadlines deadlines;
  private final BatchStatement startsMade = BatchStatement.of(WorkflowStartRepository.DONE);
  private final BatchStatement newsHandedOver = BatchStatement.of(OutboxRepository.HANDED_OVER);
  private final BatchStatement claims = BatchStatement.of(WorkflowStartRepository.CLAIM);

  /** This host, as its claims on owed starts name it. */
  private final String host = java.util.UUID.randomUUID().toString();

  /** The VMs whose starts this host is making: the sweep leaves them alone. */
  private final Set<String> making = ConcurrentHashMap.newKeySet();

  /**
   * Starts in flight at once: enough to keep the server busy, not a thread per VM. Each waits a
   * round trip and a commit on a real server (with 16 the CLI's dev server took 86 starts a second,
   * with 64 109).
   */
  private static final int IN_FLIGHT = 64;

  /** How long a claim on a chunk of starts holds: its starts' deadline, thrice. */
  static final Duration CLAIM = START_DEADLINE.multipliedBy(3);

  private final ExecutorService starting =
      Executors.newFixedThreadPool(IN_FLIGHT, DaemonThreads.named("workflow-starter"));

  /** Batches handed over at once, one thread each while its starts are made. */
  private static final int BATCHES = 8;

  /**
   * Starts claimed and made at a time by one batch: all batches' chunks together keep {@link
   * #IN_FLIGHT} starts going, so that a claimed chunk is started at once, not queued behind other
   * batches' starts past its claim (on two hosts, chunks of 64 queued that long and the other
   * host's sweep made 1,900 of a burst's 10,000 starts a second time).
   */
  private static final int CHUNK = IN_FLIGHT / BATCHES;

  private final ExecutorService batches =
      Executors.newFixedThreadPool(BATCHES, DaemonThreads.named("workflow-start-batch"));

  /**
   * How long a submission's names wait for others' before their delay begins: a burst of single
   * requests then costs its starts' queries once per gathering, where it cost them once per VM.
   */
  static final Duration GATHER = Duration.ofMillis(100);

  /** How fast this host takes submissions. */
  private final SubmissionPace pace = new SubmissionPace();

  /** The names of this gathering's submissions; guarded by itself. */
  private final List<String> gathered = new ArrayList<>();

  private final ScheduledExecutorService sweeper =
      Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("workflow-start-sweep"));

  public VmWorkflowStarter(
      ControlWorkflows workflows,
      WorkflowStartRepository starts,
      VmRepository vms,
      dev.rota.store.VmTaskRepository tasks,
      CertainCommits certain,
      TransactionOperations<Connection> tx,
      Clock clock,
      TemporalDeadlines deadlines,
      dev.rota.scheduler.settings.VmSettings settings) {
    this.delay = settings.workflowStartDelay();
    this.deadlines = deadlines;
    this.workflows = workflows;
    this.starts = starts;
    this.vms = vms;
    this.tasks = tasks;
    this.certain = certain;
    this.tx = tx;
    this.clock = clock;
  }

  /**
   * Starts the workflows of VMs just submitted, in the background; whatever does not start stays
   * owed.
   */
  public void startSoon(List<VmRow> submitted) {
    List<String> names = submitted.stream().map(VmRow::name).toList();
    making.addAll(names);
    pace.submitted(names.size(), monotonicMillis());
    boolean first;
    synchronized (gathered) {
      first = gathered.isEmpty();
      gathered.addAll(names);
    }
    if (first) {
      try {
        sweeper.schedule(this::handOverGathered, GATHER.toMillis(), TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.RejectedExecutionException e) {
        handOverGathered(); // closing: the delay's own scheduling lets them go
      }
    }
  }

  /** The pace is a rate, not a time of day: a clock set back or held by a test does not skew it. */
  private static long monotonicMillis() {
    return System.nanoTime() / 1_000_000;
  }

  private void handOverGathered() {
    List<String> names;
    synchronized (gathered) {
      names = List.copyOf(gathered);
      gathered.clear();
    }
    startAfterDelay(names, 1);
  }

  /**
   * Starts these workflows after the delay; those whose VMs are still in their burst wait another
   * delay, and all of them while this host's submissions outpace its starts ({@link
   * SubmissionPace}), without a query meanwhile. Either wait ends {@link #BURST_DELAYS} delays
   * after the submission. The names stay in {@link #making} until started or given up, so this
   * host's sweep leaves them (another host's may take those owed longer than {@link #OWED_FOR}: a
   * start is made once whoever makes it).
   */
  private void startAfterDelay(List<String> names, int delays) {
    Runnable batch =
        () -> {
          List<String> waiting = List.of();
          try {
            waiting = startNow(names, !delay.isZero(), true).waiting();
          } catch (RuntimeException e) {
            log.warn("workflow starts of {} VMs left to the sweep: {}", names.size(), e.toString());
          } finally {
            Set<String> again = new java.util.HashSet<>(waiting);
            names.stream().filter(n -> !again.contains(n)).forEach(making::remove);
          }
          if (!waiting.isEmpty()) {
            startAfterDelay(waiting, delays + 1);
          }
        };
    try {
      sweeper.schedule(
          () -> {
            if (delays < BURST_DELAYS && pace.outpacingStarts(monotonicMillis())) {
              startAfterDelay(names, delays + 1);
              return;
            }
            try {
              batches.execute(batch);
            } catch (java.util.concurrent.RejectedExecutionException e) {
              names.forEach(
                  making::remove); // closing: the sweep of the next host to start takes them
            }
          },
          delay.toMillis(),
          TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      names.forEach(making::remove);
    }
  }

  /** Sweeps every {@link #SWEEP_EVERY} from now on: what a host does once it serves. */
  public void sweepEvery(Duration every) {
    sweeper.scheduleWithFixedDelay(
        () -> {
          try {
            sweep();
          } catch (RuntimeException e) {
            log.debug("workflow start sweep failed: {}", e.toString());
          }
        },
        every.toMillis(),
        every.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  /**
   * Starts what has been owed for longer than {@link #OWED_FOR} and no thread here is starting;
   * returns how many it started.
   */
  public int sweep() {
    Instant now = clock.instant();
    List<WorkflowStartRow> owed = starts.oldest(now.minus(OWED_FOR), now, SWEEP_BATCH);
    List<String> names = new ArrayList<>();
    for (WorkflowStartRow o : owed) {
      if (making.add(o.vm())) {
        names.add(o.vm());
      }
    }
    try {
      return startNow(names, false, true).made();
    } finally {
      names.forEach(making::remove);
    }
  }

  /**
   * Starts the VM's workflow now if it is owed one (a user's action on a VM whose workflow has yet
   * to start); true if it was owed and is started.
   */
  public boolean startIfOwed(String vmName) {
    // Claimed or not: the action waits for its workflow, and a start made twice is done once.
    return starts.owed(vmName) > 0 && startNow(List.of(vmName), false, false).made() == 1;
  }

  /** Whether the VM's workflow has yet to be started. */
  public boolean owed(String vmName) {
    return starts.owed(vmName) > 0;
  }

  /** What a round of starts did: how many it made, and which VMs' starts wait for their burst. */
  record Round(int made, List<String> waiting) {}

  /**
   * How many delays a start waits at most for its VM's burst: 30 s with the default delay. A set of
   * 10,000 took 25 to 50 s to run on a 2-core machine, and each start made while its VM was still
   * placed or starting is followed by a signal of its news, a second action that competes with the
   * burst.
   */
  static final int BURST_DELAYS = 15;

  /**
   * Whether a VM's start waits: while its burst places and runs it (pending or scheduled, and not
   * waiting for room, its task not ended), for at most {@link #BURST_DELAYS} delays after its
   * submission; the host claims it meanwhile, so that the other hosts' sweeps leave it. A workflow
   * started once its VM runs is handed the running VM with its start, and is signalled nothing.
   */
  static boolean inItsBurst(VmRow vm, boolean taskEnded, Instant now, Duration delay) {
    return beingPlacedOrStarted(vm)
        // A VM the scheduler said it cannot place yet has no burst to wait for; one whose task
        // ended before its workflow ran (it exited or failed at once) has its outcome, and its
        // restart needs the workflow now.
        && vm.notes().pendingReason() == null
        && !taskEnded
        && waitEnds(vm, delay).isAfter(now);
  }

  /** Pending or scheduled: its burst may still be placing or starting it. */
  private static boolean beingPlacedOrStarted(VmRow vm) {
    String status = vm.state().status();
    return "pending".equals(status) || "scheduled".equals(status);
  }

  /** When a VM's start stops waiting for its burst. */
  private static Instant waitEnds(VmRow vm, Duration delay) {
    return vm.createdAt().plus(delay.multipliedBy(BURST_DELAYS));
  }

  /**
   * Starts the workflows owed to these VMs, several at a time, each from its row as it is now;
   * takes out what was started, and what is owed to a VM no longer there. With {@code mayWait},
   * leaves owed the starts of VMs still {@link #inItsBurst}. With {@code claimed}, claims each
   * chunk of starts just before making it ({@link WorkflowStartRepository#CLAIM}) and leaves those
   * another host is making: the submitting host works through a large burst's starts while the
   * other hosts' sweeps find them owed, and each start is then made once.
   */
  Round startNow(List<String> names, boolean mayWait, boolean claimed) {
    if (names.isEmpty()) {
      return new Round(0, List.of());
    }
    Map<String, WorkflowStartRow> owed = new HashMap<>();
    starts.findByVmIn(names).forEach(o -> owed.put(o.vm(), o));
    Map<String, VmRow> rows = new HashMap<>();
    vms.findByNameInList(owed.keySet()).forEach(v -> rows.put(v.name(), v));
    Instant now = clock.instant();
    List<String> waiting = new ArrayList<>();
    List<WorkflowStartRow> done = new ArrayList<>();
    List<VmRow> started = new ArrayList<>();
    List<WorkflowStartRow> ready = new ArrayList<>();
    Set<String> ended = mayWait ? endedAlready(rows.values()) : Set.of();
    for (WorkflowStartRow o : owed.values()) {
      VmRow vm = rows.get(o.vm());
      if (vm == null || vm.seq() != o.vmSeq()) {
        done.add(
            o); // deleted, and perhaps submitted again: that submission owes a start of its own
      } else if (mayWait && inItsBurst(vm, ended.contains(vm.name()), now, delay)) {
        waiting.add(vm.name());
      } else {
        ready.add(o);
      }
    }
    if (claimed) {
      // Held for as long as each may wait, and a claim's time more, so that the other hosts'
      // sweeps leave them to this host; claimed at the first look, not again at every one.
      List<WorkflowStartRow> unheld =
          waiting.stream()
              .map(owed::get)
              .filter(o -> !host.equals(o.claimedBy()) || o.claimedUntil() == null)
              .toList();
      // Those another host claimed first are its to make.
      Set<String> refused = new java.util.HashSet<>();
      unheld.forEach(o -> refused.add(o.vm()));
      claim(unheld, o -> waitEnds(rows.get(o.vm()), delay).plus(CLAIM))
          .forEach(o -> refused.remove(o.vm()));
      waiting.removeIf(refused::contains);
    }
    for (int from = 0; from < ready.size(); from += CHUNK) {
      List<WorkflowStartRow> chunk = ready.subList(from, Math.min(ready.size(), from + CHUNK));
      Instant until = clock.instant().plus(CLAIM);
      List<WorkflowStartRow> tried = claimed ? claim(chunk, o -> until) : chunk;
      List<Future<Boolean>> making = new ArrayList<>();
      for (WorkflowStartRow o : tried) {
        VmRow vm = rows.get(o.vm());
        making.add(starting.submit(() -> start(vm)));
      }
      for (int i = 0; i < making.size(); i++) {
        if (made(making.get(i), tried.get(i).vm())) {
          started.add(rows.get(tried.get(i).vm()));
          done.add(tried.get(i));
        }
      }
    }
    if (done.isEmpty()) {
      return new Round(0, waiting);
    }
    int[] taken =
        certain.write(
            () -> {
              newsHandedOver.run(
                  tx.getConnection(),
                  started.stream()
                      .map(
                          v ->
                              Map.of(
                                  "vm",
                                  v.name(),
                                  "vmSeq",
                                  v.seq(),
                                  "taskEventId",
                                  v.state().taskEventId()))
                      .toList());
              return startsMade.run(
                  tx.getConnection(),
                  done.stream().map(o -> Map.of("vm", o.vm(), "vmSeq", o.vmSeq())).toList());
            });
    Set<String> takenElsewhere = new java.util.HashSet<>();
    for (int i = 0; i < done.size(); i++) {
      if (taken[i] == 0) {
        takenElsewhere.add(done.get(i).vm()); // by another start of it, or with the VM's rows
      }
    }
    for (VmRow vm : started) {
      if (takenElsewhere.contains(vm.name())
          && vms.progressOf(vm.name()).filter(p -> p.seq() == vm.seq()).isEmpty()) {
        // Deleted while its workflow started, which the deletion did not find: the workflow ends
        // it.
        workflows.requestVmDelete(vm.name());
      }
    }
    return new Round(started.size(), waiting);
  }

  /**
   * The VMs among those still pending or scheduled whose current task has ended already: one read
   * for all of them.
   */
  private Set<String> endedAlready(java.util.Collection<VmRow> vms) {
    List<String> ids = new ArrayList<>();
    for (VmRow vm : vms) {
      if (beingPlacedOrStarted(vm)) {
        ids.add(
            dev.rota.store.VmTaskRow.id(
                vm.seq(),
                dev.rota.agentapi.TaskId.of(vm.taskName(), vm.state().restartCount()).toString()));
      }
    }
    if (ids.isEmpty()) {
      return Set.of();
    }
    Set<String> ended = new java.util.HashSet<>();
    for (dev.rota.store.VmTaskRow t : tasks.findByIdInList(ids)) {
      if (t.endedAt() != null) {
        ended.add(t.vm());
      }
    }
    return ended;
  }

  /**
   * The starts of {@code chunk} this host now claims, each until {@code until} says; those another
   * host is making are left.
   */
  private List<WorkflowStartRow> claim(
      List<WorkflowStartRow> chunk, java.util.function.Function<WorkflowStartRow, Instant> until) {
    if (chunk.isEmpty()) {
      return List.of();
    }
    Instant now = clock.instant();
    int[] taken =
        certain.write(
            () ->
                claims.run(
                    tx.getConnection(),
                    chunk.stream()
                        .map(
                            o ->
                                Map.<String, Object>of(
                                    "vm",
                                    o.vm(),
                                    "vmSeq",
                                    o.vmSeq(),
                                    "by",
                                    host,
                                    "until",
                                    until.apply(o),
                                    "now",
                                    now))
                        .toList()));
    List<WorkflowStartRow> mine = new ArrayList<>();
    for (int i = 0; i < chunk.size(); i++) {
      if (taken[i] == 1) {
        mine.add(chunk.get(i));
      }
    }
    return mine;
  }

  /**
   * Starts the workflow; false if one of another submission is open under the name. Gives up after
   * {@link #START_DEADLINE} (a gRPC deadline the SDK's retries honour, which would otherwise go on
   * for a minute): with Temporal away the start stays owed, for the sweep, rather than hold a
   * thread.
   */
  private boolean start(VmRow vm) {
    return deadlines.within(
        START_DEADLINE,
        () -> {
          try {
            workflows.startVm(vm, false);
            return true;
          } catch (WorkflowExecutionAlreadyStarted e) {
            return workflows.openFor(vm.name(), vm.seq());
          }
        });
  }

  private static boolean made(Future<Boolean> start, String vm) {
    try {
      return start.get();
    } catch (ExecutionException e) {
      log.debug("workflow of VM {} not started, still owed: {}", vm, e.getCause().toString());
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  @jakarta.annotation.PreDestroy
  void close() {
    sweeper.shutdownNow();
    batches.shutdownNow();
    starting.shutdownNow();
  }
}
