package dev.rota.core.scheduling.placement;

import dev.rota.core.scheduling.PendingVm;

/**
 * A VM whose task could not be started on a worker avoids that worker for a while, as does a VM
 * whose name an earlier VM had while that one's task is still there. Decided per VM, not per class
 * of VMs: the placer takes the worker out of the class's candidates for that VM alone.
 */
public final class AvoidsWorker {
  /** Whether {@code vm} may go to {@code worker}. */
  public boolean admits(String worker, PendingVm vm) {
    return !worker.equals(vm.avoid());
  }

  /** What the avoidance adds to a waiting VM's reason; empty when it avoids none. */
  public String why(PendingVm vm) {
    return vm.avoid() == null
        ? ""
        : "avoiding worker "
            + vm.avoid()
            + " for now (its task could not be started there, or an earlier VM of its name still"
            + " has a task there); ";
  }
}
