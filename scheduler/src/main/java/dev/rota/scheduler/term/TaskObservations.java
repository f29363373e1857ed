package dev.rota.scheduler.term;

import dev.rota.agentapi.TaskId;
import dev.rota.core.model.TaskEventType;
import dev.rota.core.model.TaskState;
import dev.rota.core.scheduling.Drainer;
import dev.rota.core.scheduling.Move;
import dev.rota.core.scheduling.ObservedTask;
import dev.rota.core.scheduling.PlacedTask;
import dev.rota.core.scheduling.Preemptor;
import dev.rota.core.scheduling.Reconciliation;
import dev.rota.core.scheduling.TermPlan;
import dev.rota.scheduler.metrics.SchedulerMetrics;
import dev.rota.store.BatchStatement;
import dev.rota.store.Columns;
import dev.rota.store.OutboxRepository;
import dev.rota.store.OutboxRow;
import dev.rota.store.VmEventRepository;
import dev.rota.store.VmReadiness;
import dev.rota.store.VmRepository;
import dev.rota.store.VmRow;
import dev.rota.store.VmTaskRepository;
import dev.rota.store.VmTaskRow;
import dev.rota.store.WorkerRepository;
import io.micronaut.transaction.TransactionOperations;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The one writer of observed task state, for the term and for agents' reports between terms alike.
 * Each change is conditional on the state it changes from, and is written with its line in the VM's
 * event log and its task event for the VM's workflow (the outbox), in the caller's transaction: an
 * observation is never recorded without the news of it, nor the news sent without the observation.
 */
@Singleton
public class TaskObservations {
  private final VmTaskRepository tasks;
  private final VmRepository vms;
  private final VmEventRepository events;
  private final OutboxRepository outbox;
  private final WorkerRepository workers;
  private final SchedulerMetrics metrics;

  private final TransactionOperations<Connection> tx;
  private final BatchStatement placeTasks = BatchStatement.of(VmTaskRepository.PLACE);
  private final BatchStatement waitsNoMore = BatchStatement.of(VmRepository.PLACED);
  private final BatchStatement logLine = BatchStatement.of(VmEventRepository.INSERT);
  private final BatchStatement logKept = BatchStatement.of(VmEventRepository.KEEP_NEWEST);
  private final BatchStatement addAction = BatchStatement.of(OutboxRepository.ADD_ANY);
  private final BatchStatement vmFailedOver = BatchStatement.of(VmRepository.FAIL_OVER);
  private final BatchStatement taskEnded = BatchStatement.of(VmTaskRepository.ENDED);
  private final BatchStatement vmStartedMove = BatchStatement.of(VmRepository.START_MOVE);
  private final BatchStatement taskStarted = BatchStatement.of(VmTaskRepository.STARTED);
  private final BatchStatement addEvent = BatchStatement.of(OutboxRepository.ADD_EVENT);
  private final BatchStatement vmRunning = BatchStatement.of(VmRepository.REPORTED_RUNNING);
  private final BatchStatement vmMoved = BatchStatement.of(VmRepository.MOVED);
  private final BatchStatement liveMoveDisk = BatchStatement.of(VmRepository.LIVE_MOVE_DISK);

  /**
   * How long a VM whose live move to a worker failed avoids that worker: a drain tries another
   * meanwhile, or that one again after it.
   */
  static final java.time.Duration LIVE_MOVE_AVOIDS = java.time.Duration.ofMinutes(2);

  public TaskObservations(
      VmTaskRepository tasks,
      VmRepository vms,
      VmEventRepository events,
      OutboxRepository outbox,
      WorkerRepository workers,
      SchedulerMetrics metrics,
      TransactionOperations<Connection> tx) {
    this.tx = tx;
    this.metrics = metrics;
    this.workers = workers;
    this.tasks = tasks;
    this.vms = vms;
    this.events = events;
    this.outbox = outbox;
  }

  /**
   * A VM's submission {@code vmSeq} to be placed, its generation {@code generation}, on {@code
   * worker}; {@code why} the worker, or null. Its task carries {@code taskName}: the VM's, or for a
   * VM claimed from a pool the replica's.
   */
  public record Placing(
      String vm, long vmSeq, int generation, String worker, String why, String taskName) {
    public Placing(String vm, long vmSeq, int generation, String worker, String why) {
      this(vm, vmSeq, generation, worker, why, vm);
    }

    String taskId() {
      return TaskId.of(taskName, generation).toString();
    }
  }

  /**
   * Places each VM as its placing says, with the action that starts its task and the news for its
   * workflow, in the caller's transaction; returns those placed, leaving out those whose workflows
   * no longer want them (stopped meanwhile) or that are placed already. A few statements for them
   * all, each a batch.
   */
  public List<Placing> placeAll(List<Placing> placings, Instant now) {
    Connection db = tx.getConnection();
    boolean[] inserted = placeTasks(db, placings, now);
    List<Placing> placed = new ArrayList<>();
    List<News> news = new ArrayList<>();
    for (int i = 0; i < placings.size(); i++) {
      Placing p = placings.get(i);
      if (inserted[i]) {
        placed.add(p);
        news.add(
            new News(
                p,
                true,
                TaskEventType.PLACED,
                "scheduled",
                "scheduled on worker "
                    + p.worker()
                    + " as task "
                    + p.taskId()
                    + (p.why() == null ? "" : " (" + p.why() + ")")));
      }
    }
    waitsNoMore.run(db, placed.stream().map(p -> Map.of("name", p.vm())).toList());
    tell(db, news, now);
    return placed;
  }

  /**
   * Fails each VM over: its task lost with its offline worker, its next generation placed on the
   * failover's target with the action that starts it, and its workflow told; returns those failed
   * over, leaving out those that moved on since the plan. A few batches for them all.
   */
  public List<TermPlan.Failover> failOverAll(
      List<TermPlan.Failover> failovers, UnaryOperator<String> taskNames, Instant now) {
    Connection db = tx.getConnection();
    List<String> messages =
        failovers.stream().map(f -> failoverMessage(f, taskNames.apply(f.vm()))).toList();
    List<Map<String, Object>> vmRows = new ArrayList<>();
    for (int i = 0; i < failovers.size(); i++) {
      TermPlan.Failover f = failovers.get(i);
      vmRows.add(
          Map.of(
              "name",
              f.vm(),
              "seq",
              f.seq(),
              "generation",
              f.generation(),
              "from",
              f.from(),
              "message",
              Columns.truncate(messages.get(i), 2048)));
    }
    int[] changed = vmFailedOver.run(db, vmRows);
    List<TermPlan.Failover> done = new ArrayList<>();
    List<String> doneMessages = new ArrayList<>();
    List<Map<String, Object>> lost = new ArrayList<>();
    for (int i = 0; i < failovers.size(); i++) {
      TermPlan.Failover f = failovers.get(i);
      if (changed[i] == 1) {
        done.add(f);
        doneMessages.add(messages.get(i));
        lost.add(
            nullable(
                "id",
                VmTaskRow.id(
                    f.seq(), TaskId.of(taskNames.apply(f.vm()), f.generation()).toString()),
                "state",
                TaskState.LOST.wireName(),
                "exitCode",
                null,
                "message",
                "lost with worker " + f.from() + ", which went offline",
                "at",
                now));
      }
    }
    taskEnded.run(db, lost);
    placeNext(
        db,
        done.stream()
            .map(
                f ->
                    new Placing(
                        f.vm(),
                        f.seq(),
                        f.generation() + 1,
                        f.to(),
                        f.why(),
                        taskNames.apply(f.vm())))
            .toList(),
        doneMessages,
        TaskEventType.FAILED_OVER,
        "failed-over",
        now);
    return done;
  }

  /**
   * Moves replicas: each one's next generation becomes its task, placed on the move's target with
   * the action that starts it, while the running one stays until the new one has started; returns
   * those moved, leaving out those that moved on since the plan (restarted, stopped, moving
   * already).
   */
  public List<Move> moveAll(List<Move> moves, UnaryOperator<String> taskNames, Instant now) {
    Connection db = tx.getConnection();
    List<Move> done = new ArrayList<>();
    List<String> messages = new ArrayList<>();
    List<Map<String, Object>> vmRows = new ArrayList<>();
    for (Move m : moves) {
      String message = "moving from worker " + m.from() + " to " + m.to() + " (" + m.why() + ")";
      messages.add(message);
      vmRows.add(
          Map.of(
              "name",
              m.vm(),
              "seq",
              m.seq(),
              "generation",
              m.generation(),
              "from",
              m.from(),
              "message",
              Columns.truncate(message, 2048)));
    }
    int[] changed = vmStartedMove.run(db, vmRows);
    List<String> doneMessages = new ArrayList<>();
    for (int i = 0; i < moves.size(); i++) {
      if (changed[i] == 1) {
        done.add(moves.get(i));
        doneMessages.add(messages.get(i));
      }
    }
    // A VM that moves live takes its disk to the new copy, which pulls it, and the VM with it,
    // from the old one.
    liveMoveDisk.run(
        db,
        done.stream()
            .map(
                m ->
                    Map.<String, Object>of(
                        "name", m.vm(), "seq", m.seq(), "from", m.from(), "to", m.to()))
            .toList());
    placeNext(
        db,
        done.stream()
            .map(
                m ->
                    new Placing(
                        m.vm(),
                        m.seq(),
                        m.generation() + 1,
                        m.to(),
                        m.why(),
                        taskNames.apply(m.vm())))
            .toList(),
        doneMessages,
        TaskEventType.MOVED,
        "moving",
        now);
    return done;
  }

  /**
   * Each VM's next generation placed, with its start, and its workflow told {@code type}. The
   * workflow hears of the new generation either way; were its task somehow placed already, the VM
   * would wait for a placement as any pending one does.
   */
  private void placeNext(
      Connection db,
      List<Placing> next,
      List<String> messages,
      TaskEventType type,
      String logType,
      Instant now) {
    boolean[] placed = placeTasks(db, next, now);
    List<News> news = new ArrayList<>();
    for (int i = 0; i < next.size(); i++) {
      news.add(new News(next.get(i), placed[i], type, logType, messages.get(i)));
    }
    tell(db, news, now);
  }

  private static String failoverMessage(TermPlan.Failover f, String taskName) {
    return "worker "
        + f.from()
        + " went offline with task "
        + TaskId.of(taskName, f.generation())
        + "; failed over to worker "
        + f.to()
        + " as task "
        + TaskId.of(taskName, f.generation() + 1)
        + (f.why() == null ? "" : " (" + f.why() + ")");
  }

  /** Each placing's task recorded, as {@link VmTaskRepository#place} would: whether it was. */
  private boolean[] placeTasks(Connection db, List<Placing> placings, Instant now) {
    int[] inserted =
        placeTasks.run(
            db,
            placings.stream()
                .map(
                    p ->
                        Map.of(
                            "id",
                            VmTaskRow.id(p.vmSeq(), p.taskId()),
                            "vm",
                            p.vm(),
                            "vmSeq",
                            p.vmSeq(),
                            "generation",
                            p.generation(),
                            "worker",
                            p.worker(),
                            "at",
                            now))
                .toList());
    boolean[] placed = new boolean[inserted.length];
    for (int i = 0; i < inserted.length; i++) {
      placed[i] = inserted[i] == 1;
    }
    return placed;
  }

  /**
   * What a VM's workflow is told of a task placed, and whether the action that starts the task goes
   * with it.
   */
  private record News(
      Placing placing, boolean start, TaskEventType type, String logType, String message) {}

  /** Each VM's log line, start and news, as {@link #tell} writes one, as batches. */
  private void tell(Connection db, List<News> news, Instant now) {
    List<Map<String, Object>> logLines = new ArrayList<>();
    List<Map<String, Object>> logsKept = new ArrayList<>();
    List<Map<String, Object>> outboxRows = new ArrayList<>();
    for (News n : news) {
      Placing p = n.placing();
      logLines.add(
          Map.of(
              "vmName",
              p.vm(),
              "time",
              now,
              "type",
              n.logType(),
              "message",
              Columns.truncate(n.message(), 4096)));
      logsKept.add(Map.of("vmName", p.vm(), "kept", VmEventRepository.KEPT_PER_VM));
      if (n.start()) {
        outboxRows.add(action(OutboxRow.START, p, null, null, now));
      }
      outboxRows.add(
          action(
              OutboxRow.NOTIFY, p, n.type().wireName(), Columns.truncate(n.message(), 2048), now));
    }
    logLine.run(db, logLines);
    logKept.run(db, logsKept);
    addAction.run(db, outboxRows);
  }

  private static Map<String, Object> action(
      String kind, Placing p, String event, String detail, Instant now) {
    return nullable(
        "kind",
        kind,
        "worker",
        p.worker(),
        "taskId",
        p.taskId(),
        "vm",
        p.vm(),
        "detail",
        detail,
        "createdAt",
        now,
        "vmSeq",
        p.vmSeq(),
        "event",
        event,
        "exitCode",
        null,
        "startedAt",
        null);
  }

  /**
   * Tells the VM's workflow that its task is on a worker whose drain deadline passed; empty when it
   * was told already or has moved on since the plan.
   */
  public Optional<OutboxRow> evict(Drainer.Eviction e, String taskName, Instant now) {
    if (vms.evicted(e.vm(), e.seq(), e.generation()) != 1) {
      return Optional.empty();
    }
    String message =
        "worker " + e.worker() + " was drained: its deadline " + e.deadline() + " passed";
    return Optional.of(
        tell(
            e.vm(),
            e.seq(),
            TaskId.of(taskName, e.generation()).toString(),
            e.worker(),
            TaskEventType.DRAINED,
            "drained",
            null,
            message,
            now,
            null));
  }

  /**
   * The term evicts {@code p.vm()}'s task for a waiting VM of higher priority: its workflow hears
   * it, and the waiting VM's events say it. Once per generation; empty when that generation is no
   * longer the VM's, or was evicted already.
   */
  public Optional<OutboxRow> preempt(Preemptor.Preemption p, String taskName, Instant now) {
    if (vms.evicted(p.vm(), p.seq(), p.generation()) != 1) {
      return Optional.empty();
    }
    events.append(
        p.forVm(),
        now,
        "preempting",
        "evicting "
            + p.vm()
            + " (priority "
            + p.priority()
            + ") from worker "
            + p.worker()
            + " to make room (priority "
            + p.forPriority()
            + ")");
    return Optional.of(
        tell(
            p.vm(),
            p.seq(),
            TaskId.of(taskName, p.generation()).toString(),
            p.worker(),
            TaskEventType.PREEMPTED,
            "preempted",
            null,
            "preempted on worker "
                + p.worker()
                + " by "
                + p.forVm()
                + " (priority "
                + p.forPriority()
                + ", this VM's "
                + p.priority()
                + ")",
            now,
            null));
  }

  /**
   * The task reached {@code to}; empty when it had already moved on (the other observer was first).
   */
  public Optional<OutboxRow> reached(
      VmTaskRow task, TaskState to, Integer exitCode, String message, Instant now) {
    return reached(task, to, exitCode, message, now, null, null);
  }

  /**
   * As {@link #reached(VmTaskRow, TaskState, Integer, String, Instant)}, by a caller that has read
   * the VM's creation time already ({@code vmCreatedAt}; null to read it here) and whether the VM
   * was moving ({@code inAMove}; null when not known): only a moving VM's task can be a failed
   * arrival.
   */
  public Optional<OutboxRow> reached(
      VmTaskRow task,
      TaskState to,
      Integer exitCode,
      String message,
      Instant now,
      Instant vmCreatedAt,
      Boolean inAMove) {
    if (to == TaskState.RUNNING) {
      return startedAll(List.of(new Reaching(task, to, exitCode, message, vmCreatedAt, true)), now)
          .stream()
          .findFirst();
    }
    String text = Columns.truncate(message, 2048);
    if (tasks.ended(task.id(), to.wireName(), exitCode, text, now) != 1) {
      return Optional.empty();
    }
    String stayed =
        "its live move to worker "
            + task.worker()
            + " failed, and it runs on where it was: "
            + message;
    // Only a moving VM's new copy (a later generation) can be a failed arrival: one statement more
    // for those alone.
    if (task.generation() > 0
        && !Boolean.FALSE.equals(inAMove)
        && vms.moveFailed(
                task.vm(),
                task.vmSeq(),
                task.generation(),
                task.worker(),
                Columns.truncate(stayed, 2048),
                now.plus(LIVE_MOVE_AVOIDS))
            == 1) {
      return Optional.of(
          tell(
              task.vm(),
              task.vmSeq(),
              task.taskId(),
              task.worker(),
              TaskEventType.MOVE_FAILED,
              "move-failed",
              exitCode,
              stayed,
              now,
              task.startedAt()));
    }
    boolean clean = to == TaskState.EXITED && Integer.valueOf(0).equals(exitCode);
    OutboxRow news =
        tell(
            task.vm(),
            task.vmSeq(),
            task.taskId(),
            task.worker(),
            TaskEventType.reaching(to),
            clean ? "exited" : "failed",
            exitCode,
            message,
            now,
            task.startedAt());
    if (to == TaskState.FAILED || to == TaskState.VANISHED) {
      workers.taskFailed(
          task.worker(), now); // the worker's doing, not the VM's: toward making it flaky
    }
    return Optional.of(news);
  }

  /**
   * A task that reached {@code to}, as {@link #reached} takes it; {@code vmCreatedAt} null when the
   * caller has not read it; {@code inAMove} false when the caller read, in its transaction, that
   * the VM is not moving (a start then has no move to mark done).
   */
  public record Reaching(
      VmTaskRow task,
      TaskState to,
      Integer exitCode,
      String message,
      Instant vmCreatedAt,
      boolean inAMove) {}

  /**
   * Each task's state, as {@link #reached} records one; the news of those recorded. The starts,
   * nearly all of what a burst's reports say, take a few batches whatever their number: one by one,
   * six statements each, they were most of the report writer's time.
   */
  public List<OutboxRow> reachedAll(List<Reaching> reachings, Instant now) {
    List<OutboxRow> told = new ArrayList<>();
    List<Reaching> starts = new ArrayList<>();
    for (Reaching r : reachings) {
      if (r.to() == TaskState.RUNNING) {
        starts.add(r);
      } else {
        reached(r.task(), r.to(), r.exitCode(), r.message(), now, r.vmCreatedAt(), r.inAMove())
            .ifPresent(told::add);
      }
    }
    told.addAll(startedAll(starts, now));
    return told;
  }

  /**
   * Tasks that started: each recorded once, with its line in the VM's log, its news, and the read
   * model showing the VM running, as batches.
   */
  private List<OutboxRow> startedAll(List<Reaching> starts, Instant now) {
    Connection db = tx.getConnection();
    int[] changed =
        taskStarted.run(
            db,
            starts.stream()
                .map(
                    s ->
                        nullable(
                            "id",
                            s.task().id(),
                            "at",
                            now,
                            "message",
                            Columns.truncate(s.message(), 2048)))
                .toList());
    List<Reaching> started = new ArrayList<>();
    for (int i = 0; i < changed.length; i++) {
      if (changed[i] == 1) {
        started.add(starts.get(i));
      }
    }
    if (started.isEmpty()) {
      return List.of();
    }
    List<Long> ids = new ArrayList<>(outbox.nextIds(started.size()));
    java.util.Collections.sort(ids);
    List<OutboxRow> news = new ArrayList<>();
    List<Map<String, Object>> logLines = new ArrayList<>();
    List<Map<String, Object>> events = new ArrayList<>();
    List<Map<String, Object>> running = new ArrayList<>();
    List<Map<String, Object>> moves = new ArrayList<>();
    String event = TaskEventType.reaching(TaskState.RUNNING).wireName();
    for (int i = 0; i < started.size(); i++) {
      Reaching s = started.get(i);
      VmTaskRow task = s.task();
      String text = Columns.truncate(s.message(), 2048);
      long id = ids.get(i);
      // A start's line is not followed by a trim of the log: its placing's line, just before,
      // trimmed it, so the log holds at most one line more than it keeps. The trim was an eighth
      // of a report's commit.
      logLines.add(
          nullable(
              "vmName",
              task.vm(),
              "time",
              now,
              "type",
              "started",
              "message",
              Columns.truncate(s.message(), 4096)));
      events.add(
          nullable(
              "id",
              id,
              "worker",
              task.worker(),
              "taskId",
              task.taskId(),
              "vm",
              task.vm(),
              "vmSeq",
              task.vmSeq(),
              "event",
              event,
              "exitCode",
              s.exitCode(),
              "message",
              text,
              "at",
              now,
              "startedAt",
              now));
      // What the workflow will record on hearing it, to the millisecond its events carry: the API
      // need not wait for the workflow's turn on a busy host, which under heavy load can take a
      // minute. Before the move below is marked done, so that a move's copy, whose record keeps
      // its first placement's time, is left to the workflow.
      running.add(
          nullable(
              "name",
              task.vm(),
              "seq",
              task.vmSeq(),
              "generation",
              task.generation(),
              "worker",
              task.worker(),
              "message",
              text,
              "taskEventId",
              id,
              "scheduledAt",
              task.placedAt().truncatedTo(ChronoUnit.MILLIS),
              "startedAt",
              now.truncatedTo(ChronoUnit.MILLIS)));
      if (s.inAMove()) {
        moves.add(Map.of("name", task.vm(), "generation", task.generation()));
      }
      news.add(
          new OutboxRow(
              id,
              OutboxRow.NOTIFY,
              task.worker(),
              task.taskId(),
              task.vm(),
              text,
              now,
              0,
              task.vmSeq(),
              event,
              s.exitCode(),
              now,
              null,
              null));
    }
    logLine.run(db, logLines);
    addEvent.run(db, events);
    vmRunning.run(db, running);
    int[] moved = vmMoved.run(db, moves);
    for (int i = 0, move = 0; i < started.size(); i++) {
      VmTaskRow task = started.get(i).task();
      if (started.get(i).inAMove() && moved[move++] == 1) {
        // A move's new copy runs: its old one is removed now, with the next pass over the outbox,
        // rather than once its worker's whole task list is next read.
        vms.oldCopyOn(task.vm())
            .ifPresent(
                from ->
                    outbox.add(
                        OutboxRow.REMOVE,
                        from,
                        TaskId.of(task.taskName(), task.generation() - 1).toString(),
                        null,
                        task.vmSeq(),
                        "its move's new copy runs on worker " + task.worker(),
                        now));
      }
      if (task.generation() == 0) {
        // Its creation time alone: the whole row, decoded, took a tenth of the report writer's
        // time.
        Instant createdAt = started.get(i).vmCreatedAt();
        (createdAt != null ? Optional.of(createdAt) : vms.createdAtOf(task.vm(), task.vmSeq()))
            .ifPresent(at -> metrics.firstRun(java.time.Duration.between(at, now)));
      }
    }
    return news;
  }

  /** A batch row from names and values, which unlike {@link Map#of} may be null. */
  private static Map<String, Object> nullable(Object... namesAndValues) {
    Map<String, Object> row = new HashMap<>();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      row.put((String) namesAndValues[i], namesAndValues[i + 1]);
    }
    return row;
  }

  /**
   * Its agent removed task {@code taskId} from {@code worker} (it answers once the task has ended):
   * a record of a task its VM no longer wants (an earlier generation, or the VM stopping, stopped
   * or failed) is forgotten now, as the term would once the worker's task list no longer shows it,
   * and a move that left it there is over. Returns whether that freed the room the task held.
   */
  public boolean removedFrom(String worker, String taskId, Instant now) {
    Optional<TaskId> id = TaskId.parse(taskId);
    Optional<dev.rota.store.VmRow> vm = id.flatMap(i -> vms.ofTask(i.vm(), 0));
    if (vm.isEmpty()) {
      return false;
    }
    String record = VmTaskRow.id(vm.get().seq(), taskId);
    PlacedTask placed =
        tasks
            .findById(record)
            .filter(r -> r.worker().equals(worker))
            .map(Snapshots::task)
            .orElse(null);
    boolean current = vm.get().state().restartCount() <= id.get().restartCount();
    if (current && (placed == null || placed.wantedBy(Snapshots.vm(vm.get(), now)))) {
      return false; // the task the VM wants, removed: the term's to judge
    }
    boolean freed = false;
    if (placed != null) {
      tasks.forget(record);
      freed = placed.state().live();
    }
    if (worker.equals(vm.get().notes().oldCopyOn())) {
      Instant started =
          tasks
              .findById(
                  VmTaskRow.id(
                      vm.get().seq(),
                      TaskId.of(vm.get().taskName(), vm.get().state().restartCount()).toString()))
              .map(VmTaskRow::startedAt)
              .orElse(null);
      moveEnded(
          new Reconciliation.MoveEnded(vm.get().name(), vm.get().seq(), worker), started, now);
    }
    return freed;
  }

  /**
   * A move is over: its old copy is gone from the worker it moved from. The VM reads as moved from
   * now on, and its log says how long the two copies overlapped; false when another term ended it
   * first.
   *
   * @param newCopyStarted when the new copy started, or null when that is not known
   */
  public boolean moveEnded(Reconciliation.MoveEnded m, Instant newCopyStarted, Instant now) {
    if (vms.moveEnded(m.vm(), m.from()) != 1) {
      return false;
    }
    String overlap =
        newCopyStarted == null
            ? ""
            : String.format(
                java.util.Locale.ROOT,
                ", %.1f s after its new copy started",
                java.time.Duration.between(newCopyStarted, now).toMillis() / 1000.0);
    events.append(
        m.vm(),
        now,
        "moved",
        "its old copy on worker " + m.from() + " is gone" + overlap + ": the move is done");
    return true;
  }

  /**
   * The worker could not start the task: its record goes, so that the VM is placed again elsewhere.
   */
  public Optional<OutboxRow> givenBack(
      VmTaskRow task, String message, Instant avoidUntil, Instant now) {
    if (tasks.givenBack(task.id()) != 1) {
      return Optional.empty();
    }
    vms.avoid(task.vm(), task.worker(), avoidUntil);
    return Optional.of(
        tell(
            task.vm(),
            task.vmSeq(),
            task.taskId(),
            task.worker(),
            TaskEventType.GIVEN_BACK,
            "start-failed",
            null,
            message,
            now,
            null));
  }

  /**
   * What the readiness check of a VM's running task of {@code generation} now says, written to the
   * VM when it changed: ready (since when) or not (why); with its event and news for the VM's
   * workflow, which shows it. A task just started is not ready until its check first passes: news
   * only once the check failed, or stopped passing.
   */
  public Optional<OutboxRow> readiness(
      VmRow vm, VmTaskRow task, int generation, ObservedTask.Readiness said, Instant now) {
    String why = said.ready() || said.why() == null ? null : Columns.truncate(said.why(), 512);
    VmReadiness was = vm.readiness();
    boolean wasReady = was.passesFor(generation);
    boolean sameWords =
        was.generation() != null
            && was.generation() == generation
            && was.since() == null
            && java.util.Objects.equals(was.message(), why);
    if ((said.ready() ? wasReady : sameWords)
        || vms.readiness(vm.name(), vm.seq(), generation, said.since(), why) == 0) {
      return Optional.empty();
    }
    if (!said.ready() && why == null && !wasReady) {
      return Optional.empty();
    }
    return Optional.of(
        tell(
            vm.name(),
            vm.seq(),
            task.taskId(),
            task.worker(),
            said.ready() ? TaskEventType.READY : TaskEventType.NOT_READY,
            said.ready() ? "ready" : "not-ready",
            null,
            said.ready()
                ? "its readiness check passes on " + task.worker()
                : why == null ? "its readiness check no longer passes" : why,
            said.ready() ? said.since() : now,
            null));
  }

  private OutboxRow tell(
      String vm,
      long vmSeq,
      String taskId,
      String worker,
      TaskEventType type,
      String logType,
      Integer exitCode,
      String message,
      Instant now,
      Instant startedAt) {
    String text = Columns.truncate(message, 2048);
    events.append(vm, now, logType, Columns.truncate(message, 4096));
    long id = outbox.nextId();
    outbox.addEvent(id, worker, taskId, vm, vmSeq, type.wireName(), exitCode, text, now, startedAt);
    return new OutboxRow(
        id,
        OutboxRow.NOTIFY,
        worker,
        taskId,
        vm,
        text,
        now,
        0,
        vmSeq,
        type.wireName(),
        exitCode,
        startedAt,
        null,
        null);
  }
}
