package dev.rota.host;

import dev.rota.agent.Agent;
import dev.rota.agentapi.TaskView;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What dev mode leaves running when it stops, and what it finds running of another data folder when
 * it starts. A VM's process or QEMU guest outlives dev mode on purpose, for the next start on the
 * same data folder to adopt; dev mode says so, and how to stop them, rather than leave them unseen.
 */
final class DevLeftovers {
  /** How a user stops them: dev mode's own stop of every VM. */
  static final String STOP_THEM = "./rota dev --stop-vms";

  private DevLeftovers() {}

  /** The VMs whose tasks run on dev mode's agents, by name, sorted. */
  static List<String> running(List<Agent> agents) {
    return agents.stream()
        .flatMap(a -> a.tasks().stream())
        .filter(t -> t.state().equals("running") || t.state().equals("starting"))
        .map(TaskView::vm)
        .distinct()
        .sorted()
        .toList();
  }

  /** What to say as dev mode stops with {@code vms} still running; empty when none are. */
  static Optional<String> leftRunning(List<String> vms, Path dataDir) {
    if (vms.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        "rota: left running for the next start on "
            + dataDir
            + " to adopt: "
            + vms.size()
            + (vms.size() == 1 ? " VM (" : " VMs (")
            + String.join(", ", vms)
            + "); to stop "
            + (vms.size() == 1 ? "it" : "them")
            + ": "
            + STOP_THEM);
  }

  /**
   * What to say of tasks running on this machine that dev agents of another data folder started:
   * empty when there are none. Their folders are {@code <data>/agents/dev-N/tasks/<task>}.
   */
  static Optional<String> ofOtherDataFolders(List<Path> taskFolders, Path dataDir) {
    TreeMap<Path, Long> byFolder =
        taskFolders.stream()
            .filter(DevLeftovers::devAgentsTask)
            .map(f -> f.getParent().getParent().getParent().getParent())
            .filter(data -> !data.equals(dataDir))
            .collect(Collectors.groupingBy(d -> d, TreeMap::new, Collectors.counting()));
    if (byFolder.isEmpty()) {
      return Optional.empty();
    }
    String folders =
        byFolder.entrySet().stream()
            .map(e -> e.getKey() + " (" + e.getValue() + (e.getValue() == 1 ? " task)" : " tasks)"))
            .collect(Collectors.joining(", "));
    Path first = byFolder.firstKey();
    return Optional.of(
        "rota: VMs that dev mode started on another data folder still run on this machine: "
            + folders
            + "; this dev mode uses "
            + dataDir
            + ". ROTA_DATA_DIR="
            + first
            + " ./rota dev adopts them; ROTA_DATA_DIR="
            + first
            + " "
            + STOP_THEM
            + " stops them");
  }

  /** Whether {@code folder} is a task's of a dev agent: {@code …/agents/dev-N/tasks/<task>}. */
  private static boolean devAgentsTask(Path folder) {
    int n = folder.getNameCount();
    return n >= 4
        && folder.getName(n - 2).toString().equals("tasks")
        && folder.getName(n - 3).toString().matches("dev-[0-9]+")
        && folder.getName(n - 4).toString().equals("agents");
  }
}
