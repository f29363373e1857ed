package dev.rota.scheduling;

import dev.rota.workflows.model.VmStatus;
import java.util.Map;

/**
 * A VM at the start of a term, as the store has it.
 *
 * @param avoidWorker a worker it is not to be placed on for now, or null
 */
public record VmSnapshot(
    String name,
    long seq,
    String runtime,
    Map<String, Long> request,
    Map<String, String> labels,
    VmStatus status,
    String statusMessage,
    String worker,
    int restartCount,
    String avoidWorker) {

  public VmSnapshot(
      String name, long seq, String runtime, Map<String, Long> request, Map<String, String> labels, VmStatus status,
      String statusMessage, String worker, int restartCount) {
    this(name, seq, runtime, request, labels, status, statusMessage, worker, restartCount, null);
  }

  /** Whether it holds its worker's resources. */
  public boolean holds() {
    return worker != null
        && (status == VmStatus.SCHEDULED || status == VmStatus.RUNNING || status == VmStatus.STOPPING);
  }
}
