package dev.rota.workflows.vm;

import io.temporal.activity.ActivityInterface;

/** The read model of what task events made of a VM: written often, as a local activity. */
@ActivityInterface
public interface VmReadModel {
  /**
   * Records what a task event made of the VM: status, worker, message, exit code and times, for the
   * generation it names (a record about an earlier generation changes nothing).
   */
  void recordLifecycle(VmLifecycle lifecycle);
}
