package dev.rota.agent.runtimes;

import dev.rota.agent.machine.Executables;
import dev.rota.agent.machine.Tools;
import dev.rota.agent.tasks.Execution;
import dev.rota.agent.tasks.Refusal;
import dev.rota.agent.tasks.Supervisor;
import dev.rota.agent.tasks.Task;
import dev.rota.agent.tasks.TaskRuntime;
import dev.rota.agentapi.TaskView;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The {@code process} runtime: runs the VM's {@code command} (never through a shell: argv as given)
 * with its {@code env}, in a working folder of its own, output kept in bounded files, under the CPU
 * and memory it asked for where the machine's control groups allow ({@link Cgroups}). A process
 * shares the worker's file system, network and users: it is a process with limits, not a VM.
 */
public final class ProcessRuntime implements TaskRuntime {
  private final Supervisor supervisor;
  private final Cgroups cgroups;

  public ProcessRuntime(Supervisor supervisor, Cgroups cgroups) {
    this.supervisor = supervisor;
    this.cgroups = cgroups;
  }

  @Override
  public void start(Task task) {
    List<String> command = task.spec.command() == null ? List.of() : task.spec.command();
    if (command.isEmpty()) {
      task.failed("no command to run", Instant.now());
      return;
    }
    Map<String, String> env = environment(task);
    try {
      Path dir = supervisor.prepare(task);
      if (!runnable(command.get(0), dir, env)) {
        throw new IOException("no such executable file");
      }
      Map<String, Long> resources =
          task.spec.resources() == null ? Map.of() : task.spec.resources();
      List<Path> groups =
          cgroups.create(
              task.id, resources.getOrDefault("cpu", 0L), resources.getOrDefault("memory", 0L));
      supervisor.launch(task, Cgroups.joining(groups, command), env, true, this::ended);
    } catch (IOException e) {
      cgroups.remove(task.id);
      task.failed(
          "cannot start " + command.get(0) + ": " + Tools.firstLine(e.getMessage()), Instant.now());
    }
  }

  /** The task's variables, and the worker's port of each of its named ports. */
  private static Map<String, String> environment(Task task) {
    Map<String, String> env =
        new java.util.HashMap<>(task.spec.env() == null ? Map.of() : task.spec.env());
    // A process listens on the worker's port itself: each named port's is in its environment.
    for (dev.rota.agentapi.PortSpec p : task.spec.portsOrNone()) {
      env.put(p.variable(), String.valueOf(p.hostPort()));
    }
    return env;
  }

  /**
   * {@code command} beside the task's process: in its folder, with its variables, in its control
   * groups (under its limits).
   */
  @Override
  public Execution exec(Task task, List<String> command) throws Refusal {
    Path dir = supervisor.folder(task.id);
    Map<String, String> env = environment(task);
    if (!runnable(command.get(0), dir, env)) {
      throw new Refusal(400, "cannot run " + command.get(0) + ": no such executable file");
    }
    ProcessBuilder builder =
        new ProcessBuilder(Cgroups.joining(cgroups.existing(task.id), command))
            .directory(dir.toFile());
    // Not the task's folder variable: by that an agent started again finds the task's process.
    builder.environment().putAll(env);
    try {
      return new ProcessExecution(builder.start());
    } catch (IOException e) {
      throw new Refusal(
          400, "cannot run " + command.get(0) + ": " + Tools.firstLine(e.getMessage()));
    }
  }

  /** Its exit code, or the kernel's memory limit that killed it. */
  void ended(Task task, Integer code, Instant at) {
    boolean oom = cgroups.oomKilled(task.id);
    cgroups.remove(task.id);
    if (oom) {
      long limit =
          task.spec.resources() == null ? 0 : task.spec.resources().getOrDefault("memory", 0L);
      task.failed(
          "killed by the kernel for using more than its memory limit of " + limit + " MiB", at);
    } else if (code == null) {
      task.ended(null, "ended while adopted after an agent restart; exit code unknown", at);
    } else {
      task.ended(code, "exited with code " + code, at);
    }
  }

  @Override
  public Task recover(Path record, Consumer<TaskView> changes) throws IOException {
    return supervisor.recover(record, changes, this::ended);
  }

  @Override
  public void stop(Task task, Duration grace) {
    Supervisor.stop(
        task,
        grace,
        handle -> {
          handle.descendants().forEach(ProcessHandle::destroy);
          handle.destroy(); // SIGTERM
        });
    cgroups.remove(task.id);
  }

  /**
   * Whether {@code command} names a file that can be run: the shell that puts it in its control
   * group would otherwise report a missing one as an exit code, not as a start that failed.
   */
  private static boolean runnable(String command, Path dir, Map<String, String> env) {
    String path =
        env.getOrDefault(
            "PATH", System.getenv().getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin"));
    return Executables.find(command, path, dir).isPresent();
  }
}
