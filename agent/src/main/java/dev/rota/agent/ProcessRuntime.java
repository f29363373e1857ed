package dev.rota.agent;

import dev.rota.agentapi.TaskSpec;
import dev.rota.agentapi.TaskView;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The {@code process} runtime: runs the VM's {@code command} (never through a shell: argv as given)
 * with its {@code env}, in a working folder of its own, output kept in bounded files. Each task leaves
 * a record (pid and start time) so that an agent started again finds its processes.
 */
final class ProcessRuntime implements TaskRuntime {
  /**
   * Set in every task's environment: its folder (where its output is kept). It also lets an agent find
   * a process it started but had not recorded when it was killed.
   */
  static final String TASK_DIR_VARIABLE = "ROTA_TASK_DIR";

  /** What the agent remembers of a task's process across its own restart; pid 0 while starting. */
  record ProcessRecord(String id, TaskSpec spec, long pid, String processStart, String startedAt) {}

  private final Path tasksDir;
  private final ObjectMapper json;

  ProcessRuntime(Path tasksDir, ObjectMapper json) {
    this.tasksDir = tasksDir;
    this.json = json;
  }

  Path folder(String taskId) {
    return tasksDir.resolve(taskId);
  }

  @Override
  public void start(Task task) {
    List<String> command = task.spec.command() == null ? List.of() : task.spec.command();
    if (command.isEmpty()) {
      task.failed("no command to run", Instant.now());
      return;
    }
    try {
      Path dir = folder(task.id);
      Files.createDirectories(dir);
      // Recorded before the process exists, and the process tagged with its folder: an agent killed
      // between starting it and recording its pid finds it by the tag, instead of starting it twice.
      writeRecord(dir, new ProcessRecord(task.id, task.spec, 0, "", ""));
      ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile());
      if (task.spec.env() != null) {
        builder.environment().putAll(task.spec.env());
      }
      builder.environment().put(TASK_DIR_VARIABLE, dir.toString());
      Process process = builder.start();
      BoundedLog.follow(process.getInputStream(), dir.resolve("stdout.log"), "task-" + task.id + "-stdout");
      BoundedLog.follow(process.getErrorStream(), dir.resolve("stderr.log"), "task-" + task.id + "-stderr");
      process.getOutputStream().close();
      task.handle = process.toHandle();
      Instant now = Instant.now();
      String processStart = process.toHandle().info().startInstant().map(Instant::toString).orElse("");
      writeRecord(dir, new ProcessRecord(task.id, task.spec, process.pid(), processStart, now.toString()));
      // Running only once recorded: what the controller is told has started, a restarted agent finds.
      task.running(now);
      process.onExit().thenAccept(p -> {
        int code = p.exitValue();
        writeExit(dir, code);
        task.ended(code, "exited with code " + code, Instant.now());
      });
    } catch (IOException e) {
      task.failed("cannot start " + command.get(0) + ": " + firstLine(e.getMessage()), Instant.now());
    }
  }

  @Override
  public void stop(Task task, Duration grace) {
    if (!(task.handle instanceof ProcessHandle handle) || !handle.isAlive()) {
      return;
    }
    handle.descendants().forEach(ProcessHandle::destroy);
    handle.destroy(); // SIGTERM
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
   * start time, so a reused pid is not mistaken for it), reported ended otherwise.
   */
  Task recover(Path record, java.util.function.Consumer<TaskView> changes) throws IOException {
    ProcessRecord r = json.readValue(record.toFile(), ProcessRecord.class);
    if (r.pid() == 0) {
      // The agent stopped between recording the task and recording its process.
      Optional<ProcessHandle> started = TaggedProcesses.find(TASK_DIR_VARIABLE, record.getParent().toString());
      if (started.isEmpty()) {
        return null; // never started: forgotten, so that a start request starts it
      }
      ProcessHandle p = started.get();
      r = new ProcessRecord(r.id(), r.spec(), p.pid(), p.info().startInstant().map(Instant::toString).orElse(""),
          p.info().startInstant().orElse(Instant.now()).toString());
      writeRecord(record.getParent(), r);
    }
    Task task = new Task(r.id(), r.spec(), changes);
    ProcessHandle handle = ProcessHandle.of(r.pid()).orElse(null);
    boolean same =
        handle != null && handle.isAlive()
            && handle.info().startInstant().map(Instant::toString).orElse("").equals(r.processStart());
    if (same) {
      task.handle = handle;
      task.running(Instant.parse(r.startedAt()));
      handle.onExit().thenAccept(p -> task.ended(null, "ended while adopted after an agent restart; exit code unknown", Instant.now()));
      return task;
    }
    Path exit = record.resolveSibling("exit-code");
    task.running(Instant.parse(r.startedAt()));
    if (Files.exists(exit)) {
      int code = Integer.parseInt(Files.readString(exit).strip());
      task.ended(code, "exited with code " + code, Instant.now());
    } else {
      task.failed("the process ended while the agent was down; exit code unknown", Instant.now());
    }
    return task;
  }

  /** Replaced whole or not at all: a record half written by an agent killed mid-write would be lost. */
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

  private static String firstLine(String s) {
    return s == null ? "" : s.lines().findFirst().orElse("");
  }
}
