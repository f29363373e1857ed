package dev.rota.host;

import dev.rota.control.VmCommands;
import dev.rota.store.VmRepository;
import dev.rota.store.VmRow;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * {@code rota.jar dev --stop-vms}: dev mode started on its data folder only to stop every VM there
 * as {@code rota vm stop} would (each VM's workflow records it stopped, so that no later start
 * restarts it), waiting until their processes and guests have ended.
 */
final class DevStops {
  /** The longest wait for the tasks to end: a guest's power-down, then its kill, each bounded. */
  static final Duration PATIENCE = Duration.ofMinutes(3);

  private static final Set<String> LIVE = Set.of("pending", "scheduled", "running");

  private DevStops() {}

  /** Stops every VM that may run; 0 once none runs, 1 if some still run after the wait. */
  static int stopEveryVm(RotaHost host, PrintStream out) {
    VmCommands commands = host.context().getBean(VmCommands.class);
    List<String> live = new java.util.ArrayList<>();
    for (VmRow vm : host.context().getBean(VmRepository.class).findAll()) {
      if (LIVE.contains(vm.state().status())) {
        live.add(vm.name());
      }
    }
    live.sort(String::compareTo);
    if (live.isEmpty() && DevLeftovers.running(host.devAgents()).isEmpty()) {
      out.println("rota: no VM runs in " + host.dataDir().orElseThrow());
      return 0;
    }
    out.println("rota: stopping " + live.size() + " VMs: " + String.join(", ", live));
    for (String name : live) {
      try {
        commands.stop(name);
      } catch (RuntimeException e) {
        out.println("rota: " + name + ": " + e.getMessage());
      }
    }
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    List<String> running = DevLeftovers.running(host.devAgents());
    while (!running.isEmpty() && System.nanoTime() < deadline) {
      try {
        Thread.sleep(250);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      running = DevLeftovers.running(host.devAgents());
    }
    if (!running.isEmpty()) {
      out.println("rota: still running after " + PATIENCE.toMinutes() + " min: " + running);
      return 1;
    }
    out.println("rota: every VM is stopped");
    return 0;
  }
}
