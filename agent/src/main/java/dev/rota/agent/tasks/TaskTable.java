package dev.rota.agent.tasks;

import dev.rota.agent.machine.HostPorts;
import dev.rota.agentapi.LiveMove;
import dev.rota.agentapi.TaskId;
import dev.rota.agentapi.TaskSpec;
import dev.rota.agentapi.TaskView;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tasks on this worker, by id. Every call is idempotent by task id: the controller may repeat.
 */
public final class TaskTable {
  private static final Logger log = LoggerFactory.getLogger(TaskTable.class);

  /**
   * A VM name (a DNS label), a dot, a restart count: nothing that could climb out of the tasks
   * folder.
   */
  public static final Pattern TASK_ID =
      Pattern.compile("^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.[0-9]{1,9}$");

  private final Map<String, Task> tasks = new ConcurrentHashMap<>();

  /** Removals under way, by task id. */
  private final Map<String, java.util.concurrent.CompletableFuture<Void>> removing =
      new ConcurrentHashMap<>();

  private final Map<String, TaskRuntime> runtimes;
  private final Supervisor supervisor;
  private final Path tasksDir;
  private final Duration grace;
  private final Consumer<TaskView> changes;
  private final TaskLogs logs;
  private final HostPorts ports;
  private final HealthChecks checks;

  public TaskTable(
      Map<String, TaskRuntime> runtimes,
      Supervisor supervisor,
      Path tasksDir,
      Duration grace,
      Consumer<TaskView> changes,
      TaskLogs logs,
      HostPorts ports,
      HealthChecks checks) {
    this.checks = checks;
    this.ports = ports;
    this.changes = changes;
    this.logs = logs;
    this.runtimes = runtimes;
    this.supervisor = supervisor;
    this.tasksDir = tasksDir;
    this.grace = grace;
  }

  /**
   * Whether it is new: a task already here is left as it is. {@link SubmissionConflict} when the
   * task here is of another submission of the VM's name (a VM deleted while its task could not be
   * removed, then submitted again): that one is not this one, and stays until removed.
   */
  public boolean put(String id, TaskSpec spec) {
    Task here = tasks.get(id);
    if (here != null && !TaskId.sameSubmission(here.spec.submission(), spec.submission())) {
      throw new SubmissionConflict(
          "task "
              + id
              + " here is of submission "
              + here.spec.submission()
              + ", not "
              + spec.submission()
              + ": a VM of that name deleted since; it starts once that task is removed");
    }
    String runtime = runtimeOf(spec);
    TaskRuntime r = runtimes.get(runtime);
    if (r == null) {
      throw new IllegalArgumentException(
          "runtime "
              + runtime
              + " is not offered here ("
              + String.join(", ", runtimes.keySet())
              + ")");
    }
    boolean[] created = {false};
    tasks.computeIfAbsent(
        id,
        k -> {
          created[0] = true;
          logs.placed(TaskLogs.vmOf(id));
          TaskSpec placed;
          try {
            placed = ports.assign(spec, tasks.values().stream().map(t -> t.spec).toList());
          } catch (IllegalStateException e) {
            Task task = new Task(id, spec, changes);
            task.failed(e.getMessage(), java.time.Instant.now());
            return task;
          }
          Task task = new Task(id, placed, changes);
          r.start(task);
          checks.watch(task, r);
          return task;
        });
    return created[0];
  }

  /**
   * Ends the task and forgets it; returns once it has ended. A removal asked again while an earlier
   * one is still ending the task (a VM powering down, the controller's call timed out and retried)
   * waits for that same end, so that no caller is told a task is gone while it still runs. It stays
   * listed until it has ended: a controller that no longer sees it may take it for gone (a move's
   * end does).
   */
  public void remove(String id) {
    remove(id, null);
  }

  /**
   * {@link #remove(String)}, only if the task here is of {@code submission} (null: whichever it
   * is): a removal meant for a VM deleted since leaves the task of the VM submitted again.
   */
  public void remove(String id, Long submission) {
    remove(id, submission, true);
  }

  /**
   * {@link #remove(String, Long)}; its logs are kept for reads after (the previous generation's)
   * only when {@code keepLogs}.
   */
  public void remove(String id, Long submission, boolean keepLogs) {
    Task here = tasks.get(id);
    if (here != null && !TaskId.sameSubmission(here.spec.submission(), submission)) {
      return;
    }
    java.util.concurrent.CompletableFuture<Void> ending =
        new java.util.concurrent.CompletableFuture<>();
    java.util.concurrent.CompletableFuture<Void> earlier = removing.putIfAbsent(id, ending);
    if (earlier != null) {
      earlier.join();
      return;
    }
    try {
      Task task = tasks.get(id);
      if (task != null) {
        task.removed();
        TaskRuntime r = runtimes.get(runtimeOf(task.spec));
        if (r != null) {
          r.stop(task, grace);
        }
        tasks.remove(id, task);
      }
      Path dir = tasksDir.resolve(id);
      runtimes.values().forEach(r -> r.forget(id, dir));
      if (keepLogs) {
        keepLogsAndDelete(dir);
      } else if (Files.exists(dir)) {
        deleteFolder(dir);
      }
    } finally {
      removing.remove(id, ending);
      ending.complete(null);
    }
  }

  /**
   * Marks for the fence every task that has not ended and is not marked already for which {@code
   * why} gives a reason, and returns them: {@link #stopFenced} stops them. Marking is quick, and
   * done once per task however many looks overlap.
   */
  public synchronized List<Task> markFenced(
      java.util.function.Function<Task, java.util.Optional<String>> why) {
    List<Task> marked = new java.util.ArrayList<>();
    for (Task t : tasks.values()) {
      if (!t.ended() && !t.fenced()) {
        why.apply(t)
            .ifPresent(
                reason -> {
                  t.fence(reason);
                  marked.add(t);
                });
      }
    }
    return marked;
  }

  /**
   * Stops the tasks marked for the fence, all at once, each ending failed for its reason (their
   * records stay, so the controller hears how they ended); returns once they have all ended.
   */
  public void stopFenced(List<Task> live) {
    if (live.isEmpty()) {
      return;
    }
    java.util.concurrent.ExecutorService stops =
        java.util.concurrent.Executors.newCachedThreadPool();
    try {
      java.util.concurrent.CompletableFuture.allOf(
              live.stream()
                  .map(
                      t ->
                          java.util.concurrent.CompletableFuture.runAsync(
                              () -> {
                                TaskRuntime r = runtimes.get(runtimeOf(t.spec));
                                if (r != null) {
                                  r.stop(t, grace);
                                }
                                t.failed(
                                    t.fencedBecause(),
                                    java.time.Instant
                                        .now()); // a task with no process (still starting) ends
                                // here
                              },
                              stops))
                  .toArray(java.util.concurrent.CompletableFuture[]::new))
          .join();
    } finally {
      stops.shutdown();
    }
  }

  /**
   * What task {@code id} wrote, while it is here or after (its logs are kept once it is removed);
   * null if this worker has neither.
   */
  public TaskLogs.Chunk logs(String id, dev.rota.agentapi.LogQuery ask) throws IOException {
    if (logs.forgotten(TaskLogs.vmOf(id))) {
      return null;
    }
    Task task = tasks.get(id);
    if (task != null) {
      return logs.read(tasksDir.resolve(id), ask, !task.ended());
    }
    Path kept = logs.kept(id);
    return kept == null ? null : logs.read(kept, ask, false);
  }

  /** Drops the kept logs of every generation of {@code vm}: it is deleted. */
  public void forgetLogs(String vm) {
    logs.forget(vm);
  }

  /** Notes where the logs of the tasks still running end now, for reads from a time. */
  public void sampleLogs(java.time.Instant now) {
    for (Task t : tasks.values()) {
      if (!t.ended() && !runtimeOf(t.spec).equals("synthetic")) {
        logs.sample(tasksDir.resolve(t.id), now);
      }
    }
  }

  /** A way into a running task, through its runtime ({@link TaskRuntime#console}, {@code exec}). */
  public interface Access<T> {
    T open(TaskRuntime runtime, Task task) throws Refusal, IOException;
  }

  /**
   * {@code access} to the task {@code id}; refused (404, 409) when it is not here or not running.
   */
  public <T> T access(String id, Access<T> access) throws Refusal, IOException {
    return access(id, true, access);
  }

  /**
   * {@code access} to the task {@code id}, running or not when {@code running} is false (the
   * runtime then says what it makes of one that is not); refused (404) when it is not here.
   */
  public <T> T access(String id, boolean running, Access<T> access) throws Refusal, IOException {
    Task task = tasks.get(id);
    if (task == null) {
      throw new Refusal(404, "no task " + id + " on this worker");
    }
    String state = task.view().state();
    if (running && !state.equals(Task.RUNNING)) {
      throw new Refusal(409, "task " + id + " is " + state + ", not running");
    }
    return access.open(runtimes.get(runtimeOf(task.spec)), task);
  }

  /**
   * The id of the running task whose VM keeps {@code keepId} on this worker ({@link
   * dev.rota.agentapi.TaskSpec#keepId}); refused (404) when none runs here.
   */
  public String runningKeeping(String keepId) throws Refusal {
    for (Task task : tasks.values()) {
      if (keepId.equals(task.spec.keepId(task.id)) && task.view().state().equals(Task.RUNNING)) {
        return task.id;
      }
    }
    throw new Refusal(404, "no VM keeping " + keepId + " runs on this worker");
  }

  /**
   * Where the move of the VM keeping {@code keepId} to worker {@code to} stands here ({@link
   * LiveMove.Outcome}): the task that runs it decides; without one, a task that sent it there.
   */
  public LiveMove.Outcome moveOf(String keepId, String to) {
    LiveMove.Outcome sent = null;
    for (Task task : tasks.values()) {
      if (!keepId.equals(task.spec.keepId(task.id))) {
        continue;
      }
      LiveMove.Outcome outcome = runtimes.get(runtimeOf(task.spec)).moveOf(task);
      boolean movedThere =
          outcome != null
              && outcome.state().equals(LiveMove.Outcome.MOVED)
              && to.equals(outcome.worker());
      if (!task.ended()) {
        if (outcome == null) {
          return new LiveMove.Outcome(LiveMove.Outcome.STAYS, null);
        }
        // Sent to another worker than the one asking: it will not come there.
        return outcome.state().equals(LiveMove.Outcome.MOVED) && !movedThere
            ? new LiveMove.Outcome(LiveMove.Outcome.GONE, null)
            : outcome;
      }
      if (movedThere) {
        sent = outcome;
      }
    }
    return sent != null ? sent : new LiveMove.Outcome(LiveMove.Outcome.GONE, null);
  }

  public List<TaskView> list() {
    return tasks.values().stream()
        .map(Task::view)
        .sorted(Comparator.comparing(TaskView::id))
        .toList();
  }

  /** After a restart: processes still running are adopted, those gone are reported ended. */
  public int recover() {
    if (!Files.isDirectory(tasksDir)) {
      return 0;
    }
    int found = 0;
    try (Stream<Path> dirs = Files.list(tasksDir)) {
      for (Path dir : dirs.toList()) {
        Path record = dir.resolve("task.json");
        if (TASK_ID.matcher(dir.getFileName().toString()).matches() && Files.exists(record)) {
          try {
            String runtime = runtimeOf(supervisor.read(record).spec());
            TaskRuntime r = runtimes.get(runtime);
            if (r == null) {
              log.warn(
                  "task {} of runtime {} found, which this agent does not offer now: left alone",
                  dir.getFileName(),
                  runtime);
              continue;
            }
            Task task = r.recover(record, changes);
            if (task == null) {
              keepLogsAndDelete(dir);
              continue;
            }
            tasks.put(task.id, task);
            checks.watch(task, r);
            found++;
          } catch (IOException | RuntimeException e) {
            log.warn("task record {} unreadable, left alone: {}", record, e.toString());
          }
        }
      }
    } catch (IOException e) {
      log.warn("cannot read {}: {}", tasksDir, e.toString());
    }
    return found;
  }

  private static String runtimeOf(TaskSpec spec) {
    return spec.runtime() == null ? "process" : spec.runtime();
  }

  private void keepLogsAndDelete(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    logs.keep(dir.getFileName().toString(), dir);
    deleteFolder(dir);
  }

  private static void deleteFolder(Path dir) {
    try {
      dev.rota.agent.machine.Folders.delete(dir);
    } catch (IOException e) {
      log.debug("could not delete {}: {}", dir, e.toString());
    }
  }

  /** A start refused: the task id is held here by a task of another submission. */
  public static final class SubmissionConflict extends IllegalStateException {
    SubmissionConflict(String message) {
      super(message);
    }
  }
}
