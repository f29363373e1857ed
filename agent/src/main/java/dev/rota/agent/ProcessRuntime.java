package dev.rota.agent;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The {@code process} runtime: runs the VM's {@code command} (never through a shell: argv as given)
 * with its {@code env}, in a working folder of its own, output kept in bounded files. Each task leaves
 * a record (pid and start time) so that an agent started again finds its processes.
 */
final class ProcessRuntime implements TaskRuntime {
  /** What the agent remembers of a task's process across its own restart. */
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
      ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile());
      if (task.spec.env() != null) {
        builder.environment().putAll(task.spec.env());
      }
      Process process = builder.start();
      BoundedLog.follow(process.getInputStream(), dir.resolve("stdout.log"), "task-" + task.id + "-stdout");
      BoundedLog.follow(process.getErrorStream(), dir.resolve("stderr.log"), "task-" + task.id + "-stderr");
      process.getOutputStream().close();
      task.handle = process.toHandle();
      Instant now = Instant.now();
      task.running(now);
      String processStart = process.toHandle().info().startInstant().map(Instant::toString).orElse("");
      json.writeValue(dir.resolve("task.json").toFile(), new ProcessRecord(task.id, task.spec, process.pid(), processStart, now.toString()));
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
