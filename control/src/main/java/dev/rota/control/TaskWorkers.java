package dev.rota.control;

import dev.rota.store.VmEventRepository;
import dev.rota.store.VmRow;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The workers a VM's tasks ran on, as its events tell: each placement and each failover names the
 * worker and the task ("scheduled on worker w-1 as task web.0"). A task's logs stay on its worker
 * after it ends, so this is where they are looked for, and what is told to drop them.
 */
@Singleton
public class TaskWorkers {
  private static final Pattern PLACED =
      Pattern.compile("worker ([a-z0-9][a-z0-9-]*) as task ([a-z0-9][a-z0-9-]*\\.[0-9]+)");

  /** More events than a VM keeps. */
  private static final int READ = 10_000;

  private final VmEventRepository events;

  public TaskWorkers(VmEventRepository events) {
    this.events = events;
  }

  /**
   * Where to look for task {@code taskId} of {@code vm}: the workers its events place it on, latest
   * first, then the VM's worker, then every other worker the VM ran on, latest first.
   */
  public List<String> candidates(VmRow vm, String taskId) {
    Set<String> ordered = new LinkedHashSet<>();
    List<String[]> placements = placements(vm.name());
    for (int i = placements.size() - 1; i >= 0; i--) {
      if (placements.get(i)[1].equals(taskId)) {
        ordered.add(placements.get(i)[0]);
      }
    }
    if (vm.state().worker() != null) {
      ordered.add(vm.state().worker());
    }
    for (int i = placements.size() - 1; i >= 0; i--) {
      ordered.add(placements.get(i)[0]);
    }
    return new ArrayList<>(ordered);
  }

  /** Every worker the VM ran on, as far as its events and row tell. */
  public Set<String> all(VmRow vm) {
    return new LinkedHashSet<>(candidates(vm, ""));
  }

  /** {@link #all} for each of {@code vms}, by name, from one read of their events. */
  public Map<String, Set<String>> allOf(List<VmRow> vms) {
    Map<String, Set<String>> ran = new HashMap<>();
    if (vms.isEmpty()) {
      return ran;
    }
    events
        .allOf(vms.stream().map(VmRow::name).toList())
        .forEach(
            e -> {
              Set<String> workers = ran.computeIfAbsent(e.vmName(), v -> new LinkedHashSet<>());
              placed(e.message(), placement -> workers.add(placement[0]));
            });
    for (VmRow vm : vms) {
      Set<String> workers = ran.computeIfAbsent(vm.name(), v -> new LinkedHashSet<>());
      if (vm.state().worker() != null) {
        workers.add(vm.state().worker());
      }
    }
    return ran;
  }

  /** (worker, task id) of each placement, oldest first. */
  private List<String[]> placements(String vm) {
    List<String[]> found = new ArrayList<>();
    events.page(vm, 0, READ).forEach(e -> placed(e.message(), found::add));
    return found;
  }

  /** Each (worker, task id) an event's message places the VM on. */
  private static void placed(String message, java.util.function.Consumer<String[]> placement) {
    Matcher m = PLACED.matcher(message);
    while (m.find()) {
      placement.accept(new String[] {m.group(1), m.group(2)});
    }
  }
}
