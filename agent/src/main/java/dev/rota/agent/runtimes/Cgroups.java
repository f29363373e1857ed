package dev.rota.agent.runtimes;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * A task's CPU and memory limits, enforced by the kernel's control groups (as Nomad's drivers do):
 * each task gets a group of its own under {@code <hierarchy>/rota/<agent>/}, with a memory limit
 * (no swap beyond it) and a CPU quota of its cores per 100 ms, and its process joins the group
 * before it runs its first instruction. cgroup v2 where the unified hierarchy has the memory and
 * cpu controllers; else v1's memory and cpu hierarchies (machines that mount v1 controllers beside
 * an empty v2 hierarchy); else nothing is enforced, and {@link #reason()} says why.
 */
public final class Cgroups {
  private static final long PERIOD_MICROS = 100_000;

  public enum Kind {
    V2("cgroup-v2"),
    V1("cgroup-v1"),
    NONE("none");

    public final String label;

    Kind(String label) {
      this.label = label;
    }
  }

  private final Kind kind;

  /** v2: the one folder all groups go under; v1: the memory hierarchy's. */
  private final Path memoryParent;

  /** v1: the cpu hierarchy's; v2: the same as memory's. */
  private final Path cpuParent;

  private final String reason;

  private Cgroups(Kind kind, Path memoryParent, Path cpuParent, String reason) {
    this.kind = kind;
    this.memoryParent = memoryParent;
    this.cpuParent = cpuParent;
    this.reason = reason;
  }

  public static Cgroups none(String reason) {
    return new Cgroups(Kind.NONE, null, null, reason);
  }

  /**
   * The hierarchies of this machine, with the agent's groups under {@code rota/<agent>}; never
   * throws.
   */
  public static Cgroups detect(String agent) {
    return detect(Path.of("/proc/self/mountinfo"), agent);
  }

  public static Cgroups detect(Path mountinfo, String agent) {
    List<String[]> mounts = new ArrayList<>();
    try {
      for (String line : Files.readAllLines(mountinfo)) {
        String[] halves = line.split(" - ", 2);
        if (halves.length < 2) {
          continue;
        }
        String[] left = halves[0].split(" ");
        String[] right = halves[1].split(" ");
        if (left.length > 4 && right.length > 2) {
          mounts.add(
              new String[] {right[0], left[4], right[2]}); // type, mount point, super options
        }
      }
    } catch (IOException e) {
      return none("no /proc/self/mountinfo to find control groups in");
    }
    for (String[] m : mounts) {
      if (m[0].equals("cgroup2")) {
        Path root = Path.of(m[1]);
        String controllers = read(root.resolve("cgroup.controllers")).orElse("");
        if (List.of(controllers.split("\\s+")).containsAll(List.of("memory", "cpu"))) {
          Path parent = root.resolve("rota").resolve(agent);
          try {
            enableV2(root, parent);
            return new Cgroups(Kind.V2, parent, parent, null);
          } catch (IOException e) {
            return none("cannot make control groups under " + parent + ": " + e.getMessage());
          }
        }
      }
    }
    Path memory = null;
    Path cpu = null;
    for (String[] m : mounts) {
      if (m[0].equals("cgroup")) {
        List<String> options = List.of(m[2].split(","));
        if (options.contains("memory")) {
          memory = Path.of(m[1]);
        }
        if (options.contains("cpu")) {
          cpu = Path.of(m[1]);
        }
      }
    }
    if (memory == null || cpu == null) {
      return none(
          "this machine mounts no control group hierarchy with the memory and cpu controllers");
    }
    Path memoryParent = memory.resolve("rota").resolve(agent);
    Path cpuParent = cpu.resolve("rota").resolve(agent);
    try {
      Files.createDirectories(memoryParent);
      Files.createDirectories(cpuParent);
    } catch (IOException e) {
      return none(
          "cannot make control groups under "
              + memoryParent
              + " (the agent needs root or a delegated group): "
              + e.getMessage());
    }
    return new Cgroups(Kind.V1, memoryParent, cpuParent, null);
  }

  /**
   * Every level from the root down to {@code parent} hands the memory and cpu controllers to its
   * children.
   */
  private static void enableV2(Path root, Path parent) throws IOException {
    Files.createDirectories(parent);
    Path level = root;
    for (Path part : root.relativize(parent)) {
      write(level.resolve("cgroup.subtree_control"), "+memory +cpu");
      level = level.resolve(part);
    }
    write(parent.resolve("cgroup.subtree_control"), "+memory +cpu");
  }

  public Kind kind() {
    return kind;
  }

  /** Why nothing is enforced; null when limits are. */
  public String reason() {
    return reason;
  }

  /**
   * Makes the task's group(s) with its limits; returns the {@code cgroup.procs} files its process
   * must join (none when nothing is enforced). {@code cpu} in cores, {@code memoryMib} in MiB; 0 is
   * no limit.
   */
  List<Path> create(String taskId, long cpu, long memoryMib) throws IOException {
    if (kind == Kind.NONE) {
      return List.of();
    }
    remove(taskId); // a group left by a task of this id that ended while the agent was down
    Path mem = memoryParent.resolve(taskId);
    Path cpuDir = cpuParent.resolve(taskId);
    Files.createDirectories(mem);
    Files.createDirectories(cpuDir);
    long bytes = memoryMib * 1024 * 1024;
    if (kind == Kind.V2) {
      if (memoryMib > 0) {
        write(mem.resolve("memory.max"), Long.toString(bytes));
        writeIfPresent(mem.resolve("memory.swap.max"), "0");
      }
      if (cpu > 0) {
        write(mem.resolve("cpu.max"), (cpu * PERIOD_MICROS) + " " + PERIOD_MICROS);
      }
      return List.of(mem.resolve("cgroup.procs"));
    }
    if (memoryMib > 0) {
      write(mem.resolve("memory.limit_in_bytes"), Long.toString(bytes));
      writeIfPresent(mem.resolve("memory.memsw.limit_in_bytes"), Long.toString(bytes));
    }
    if (cpu > 0) {
      write(cpuDir.resolve("cpu.cfs_period_us"), Long.toString(PERIOD_MICROS));
      write(cpuDir.resolve("cpu.cfs_quota_us"), Long.toString(cpu * PERIOD_MICROS));
    }
    return List.of(mem.resolve("cgroup.procs"), cpuDir.resolve("cgroup.procs"));
  }

  /**
   * The {@code cgroup.procs} files of the task's groups as they are (a command run in the task
   * joins them, under the task's limits); none when nothing is enforced.
   */
  List<Path> existing(String taskId) {
    if (kind == Kind.NONE) {
      return List.of();
    }
    List<Path> procs = new ArrayList<>();
    procs.add(memoryParent.resolve(taskId).resolve("cgroup.procs"));
    if (kind == Kind.V1) {
      procs.add(cpuParent.resolve(taskId).resolve("cgroup.procs"));
    }
    return procs.stream().filter(Files::exists).toList();
  }

  /** Whether the kernel killed a process of the task's group for going over its memory limit. */
  boolean oomKilled(String taskId) {
    if (kind == Kind.NONE) {
      return false;
    }
    Path mem = memoryParent.resolve(taskId);
    Map<String, String> counters =
        kind == Kind.V2
            ? counters(mem.resolve("memory.events"))
            : counters(mem.resolve("memory.oom_control"));
    return Long.parseLong(counters.getOrDefault("oom_kill", "0")) > 0;
  }

  /** Removes the task's groups once its processes are gone (a group with a process in it stays). */
  void remove(String taskId) {
    if (kind == Kind.NONE) {
      return;
    }
    try {
      Files.deleteIfExists(memoryParent.resolve(taskId));
      if (kind == Kind.V1) {
        Files.deleteIfExists(cpuParent.resolve(taskId));
      }
    } catch (IOException e) {
      // still has a process, or already gone: tried again with the next task of this id
    }
  }

  /**
   * Removes the groups of the tasks the agent no longer holds, and its own folder of groups once
   * none is left in it. A group with a process in it stays (the agent's tasks outlive it), and so
   * does the group of a task it still holds ({@code held}, by task id) though empty: a task being
   * started has its group made a moment before its process joins it, and the process could not join
   * a group removed meanwhile.
   */
  public void removeUnheld(Predicate<String> held) {
    if (kind == Kind.NONE) {
      return;
    }
    for (Path parent : List.of(memoryParent, cpuParent)) {
      // The groups of tasks first, then the agent's own.
      try (java.util.stream.Stream<Path> groups = Files.walk(parent)) {
        groups
            .filter(Files::isDirectory)
            .filter(g -> !(parent.equals(g.getParent()) && held.test(g.getFileName().toString())))
            .sorted(java.util.Comparator.reverseOrder())
            .forEach(
                g -> {
                  try {
                    Files.deleteIfExists(g);
                  } catch (IOException e) {
                    // a process or a held task's group is still in it
                  }
                });
      } catch (IOException | java.io.UncheckedIOException e) {
        // gone already
      }
    }
  }

  /**
   * {@code argv} run through a shell that first moves itself into {@code procs} and then becomes
   * the command ({@code exec}): the command is in its groups from its first instruction, with the
   * shell's pid.
   */
  static List<String> joining(List<Path> procs, List<String> argv) {
    if (procs.isEmpty()) {
      return argv;
    }
    List<String> wrapped =
        new ArrayList<>(
            List.of(
                "/bin/sh",
                "-c",
                "while [ \"$1\" != -- ]; do echo $$ > \"$1\" || { echo \"rota-agent: cannot join control group $1\" >&2; exit 125; }; "
                    + "shift; done; shift; exec \"$@\"",
                "rota-cgroup"));
    procs.forEach(p -> wrapped.add(p.toString()));
    wrapped.add("--");
    wrapped.addAll(argv);
    return wrapped;
  }

  private static Map<String, String> counters(Path file) {
    Map<String, String> counters = new LinkedHashMap<>();
    read(file)
        .ifPresent(
            text ->
                text.lines()
                    .forEach(
                        line -> {
                          String[] kv = line.strip().split("\\s+");
                          if (kv.length == 2) {
                            counters.put(kv[0], kv[1]);
                          }
                        }));
    return counters;
  }

  private static Optional<String> read(Path file) {
    try {
      return Optional.of(Files.readString(file, StandardCharsets.UTF_8));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  private static void write(Path file, String value) throws IOException {
    Files.writeString(file, value, StandardCharsets.UTF_8);
  }

  private static void writeIfPresent(Path file, String value) throws IOException {
    if (Files.exists(file)) {
      write(file, value);
    }
  }
}
