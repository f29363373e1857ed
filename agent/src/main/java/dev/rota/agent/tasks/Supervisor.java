package dev.rota.agent.tasks;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rota.agent.machine.JsonFiles;
import dev.rota.agentapi.TaskSpec;
import dev.rota.agentapi.TaskView;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Runs a task's operating-system process so that it outlives the agent: each task leaves a record
 * (pid and start time) in its folder before and after its process starts, and the process carries
 * its folder in its environment, so that an agent started again finds it and adopts it instead of
 * starting it twice. What a process's end means is its runtime's ({@link Ending}).
 */
public final class Supervisor {
  /**
   * Set in every task's environment: its folder (where its output is kept). It also lets an agent
   * find a process it started but had not recorded when it was killed.
   */
  static final String TASK_DIR_VARIABLE = "ROTA_TASK_DIR";

  /**
   * What the agent remembers of a task's process across its own restart; pid 0 while starting. Its
   * spec holds no secret's value: the process has them, and a disk may be read by more than it.
   */
  record ProcessRecord(String id, TaskSpec spec, long pid, String processStart, String startedAt) {
    ProcessRecord {
      spec = spec == null ? null : spec.withoutSecretValues();
    }
  }

  /**
   * What a task's process ending with {@code code} means for the task, in the runtime's words; the
   * code is null for a process adopted after an agent restart, which is no child of this agent's.
   */
  public interface Ending {
    void ended(Task task, Integer code, Instant at);
  }

  private final Path tasksDir;
  private final ObjectMapper json;

  public Supervisor(Path tasksDir, ObjectMapper json) {
    this.tasksDir = tasksDir;
    this.json = json;
  }

  public Path folder(String taskId) {
    return tasksDir.resolve(taskId);
  }

  /**
   * A task's folder, made if missing, with the record that it is starting: before any process
   * exists.
   */
  public Path prepare(Task task) throws IOException {
    Path dir = folder(task.id);
    Files.createDirectories(dir);
    writeRecord(dir, new ProcessRecord(task.id, task.spec, 0, "", ""));
    return dir;
  }

  /**
   * Starts {@code argv} in the task's folder (made by {@link #prepare}), records it and marks the
   * task running; its stdout and stderr go to bounded files when {@code followOutput}; else its
   * stderr goes to its file straight (it keeps writing there while no agent runs) and its stdout
   * nowhere (a process that keeps its own log). Its end is told to {@code ending}.
   */
  public Process launch(
      Task task, List<String> argv, Map<String, String> env, boolean followOutput, Ending ending)
      throws IOException {
    Path dir = folder(task.id);
    ProcessBuilder builder = new ProcessBuilder(argv).directory(dir.toFile());
    builder.environment().putAll(env);
    builder.environment().put(TASK_DIR_VARIABLE, dir.toString());
    if (!followOutput) {
      builder
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .redirectError(ProcessBuilder.Redirect.appendTo(dir.resolve("stderr.log").toFile()));
    }
    Process process = builder.start();
    if (followOutput) {
      BoundedLog.follow(
          process.getInputStream(), dir.resolve("stdout.log"), "task-" + task.id + "-stdout");
      BoundedLog.follow(
          process.getErrorStream(), dir.resolve("stderr.log"), "task-" + task.id + "-stderr");
    }
    process.getOutputStream().close();
    task.handle = process.toHandle();
    Instant now = Instant.now();
    String processStart =
        process.toHandle().info().startInstant().map(Instant::toString).orElse("");
    try {
      writeRecord(
          dir, new ProcessRecord(task.id, task.spec, process.pid(), processStart, now.toString()));
    } catch (IOException e) {
      // Unrecorded (a full disk), a restarted agent could not find it: it would run on unknown, and
      // the controller, told it failed, would start it elsewhere. So it does not run.
      process.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
      process.onExit().join();
      throw e;
    }
    // Running only once recorded: what the controller is told has started, a restarted agent finds.
    if (runsOnceLaunched(task, dir)) {
      task.running(now);
    }
    process
        .onExit()
        .thenAccept(
            p -> {
              int code = p.exitValue();
              writeExit(dir, code);
              ending.ended(task, code, Instant.now());
            });
    return process;
  }

  /**
   * Ends the task's process: {@code ask} is the gentle request (SIGTERM, an ACPI power-down), and
   * after {@code grace} the process and its descendants are killed.
   */
  public static void stop(Task task, Duration grace, Consumer<ProcessHandle> ask) {
    if (!(task.handle instanceof ProcessHandle handle) || !handle.isAlive()) {
      return;
    }
    ask.accept(handle);
    try {
      handle.onExit().get(grace.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      handle.descendants().forEach(ProcessHandle::destroyForcibly);
      handle.destroyForcibly(); // SIGKILL
      handle.onExit().join();
    } catch (Exception e) {
      handle.destroyForcibly();
    }
  }

  /**
   * Finds a task again after the agent restarted: adopted if its process still runs (same pid and
   * start time, so a reused pid is not mistaken for it), reported ended otherwise; null when it
   * never started, so that a start request starts it.
   */
  /**
   * What a task's folder says once the VM it waited for (a live move's) arrived there and runs: a
   * restarted agent finds it running, not waiting.
   */
  public static final String ARRIVED = "arrived";

  /**
   * Whether the task runs once its process is launched. One whose VM arrives from another worker
   * runs once that VM has arrived, as its runtime says: were it told running before, the controller
   * would take the VM for moved and end its old copy, the one the guest still runs in.
   */
  private static boolean runsOnceLaunched(Task task, Path dir) {
    return !task.spec.arrives() || Files.exists(dir.resolve(ARRIVED));
  }

  public Task recover(Path record, Consumer<TaskView> changes, Ending ending) throws IOException {
    ProcessRecord r = read(record);
    if (r.pid() == 0) {
      // The agent stopped between recording the task and recording its process.
      Optional<ProcessHandle> started =
          TaggedProcesses.find(TASK_DIR_VARIABLE, record.getParent().toString());
      if (started.isEmpty()) {
        return null;
      }
      ProcessHandle p = started.get();
      r =
          new ProcessRecord(
              r.id(),
              r.spec(),
              p.pid(),
              p.info().startInstant().map(Instant::toString).orElse(""),
              p.info().startInstant().orElse(Instant.now()).toString());
      writeRecord(record.getParent(), r);
    }
    Task task = new Task(r.id(), r.spec(), changes);
    ProcessHandle handle = ProcessHandle.of(r.pid()).orElse(null);
    boolean same =
        handle != null
            && handle.isAlive()
            && handle
                .info()
                .startInstant()
                .map(Instant::toString)
                .orElse("")
                .equals(r.processStart());
    boolean runs = runsOnceLaunched(task, record.getParent());
    if (same) {
      task.handle = handle;
      if (runs) {
        task.running(Instant.parse(r.startedAt()));
      }
      handle.onExit().thenAccept(p -> ending.ended(task, null, Instant.now()));
      return task;
    }
    Path exit = record.resolveSibling("exit-code");
    if (runs) {
      task.running(Instant.parse(r.startedAt()));
    }
    if (Files.exists(exit)) {
      ending.ended(task, Integer.parseInt(Files.readString(exit).strip()), Instant.now());
    } else {
      task.failed("the process ended while the agent was down; exit code unknown", Instant.now());
    }
    return task;
  }

  ProcessRecord read(Path record) throws IOException {
    return json.readValue(record.toFile(), ProcessRecord.class);
  }

  /**
   * Replaced whole or not at all: a record half written by an agent killed mid-write would be lost.
   */
  private void writeRecord(Path dir, ProcessRecord record) throws IOException {
    JsonFiles.writeWhole(json, dir.resolve("task.json"), record);
  }

  private static void writeExit(Path dir, int code) {
    try {
      Files.writeString(dir.resolve("exit-code"), Integer.toString(code));
    } catch (IOException e) {
      // the task was removed meanwhile
    }
  }
}
