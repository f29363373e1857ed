package dev.rota.core.scheduling.placement;

import dev.rota.core.scheduling.PendingVm;

/**
 * A VM with a persistent disk (or saved memory) goes back to the worker that holds it: elsewhere it
 * would have to be copied first. The placer sends it elsewhere, copied, only when that worker takes
 * no VMs (paused, draining) but lends it. Decided per VM, as {@link AvoidsWorker} is.
 */
public final class KeepsItsDisk {
  /** Whether {@code vm} may go to {@code worker}. */
  public boolean admits(String worker, PendingVm vm) {
    return vm.diskOn() == null || worker.equals(vm.diskOn());
  }

  /**
   * Why a VM with a disk waits: where its disk is, and whether that worker could take VMs like it
   * at all ({@code open}) and so has no room, or cannot now, or is the worker it avoids for now;
   * empty without a disk.
   */
  public String why(PendingVm vm, boolean open) {
    if (vm.diskOn() == null) {
      return "";
    }
    if (vm.diskOn().equals(vm.avoid())) {
      return "its disk (or saved memory) is on that worker: it starts there once the avoidance"
          + " ends";
    }
    return "its disk (or saved memory) is on worker "
        + vm.diskOn()
        + (open
            ? ", which has no room for it now"
            : ", which cannot take it now (not registered, not ready, paused or draining)");
  }
}
