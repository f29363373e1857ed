package dev.rota.workflows.vm;

import io.temporal.activity.ActivityInterface;

/** The VM workflow's I/O: the read model and the events log. */
@ActivityInterface
public interface VmActivities {
  /** Records a new status in the read model and appends an event of the given type. */
  void recordStatus(String vmName, String status, String message, String eventType);

  /** Deletes the VM's rows and events. Idempotent. */
  void deleteVm(String vmName);
}
