package dev.rota.workflows.vmset;

/**
 * What one pass over a set found and did.
 *
 * @param gone the set is deleted and has no replicas left: its workflow ends
 * @param settled every wanted replica exists and no unwanted one is left; otherwise the workflow
 *     looks again soon
 * @param desired how many replicas the set wants
 * @param replicas how many VMs of the set exist now
 * @param created replicas this pass submitted
 * @param removing replicas this pass asked to delete (scale-down, or the set's deletion)
 * @param message what keeps the replicas from matching, or null
 * @param rollout how the rollout of a new template stands and what this pass replaced, or null when
 *     every replica is of the set's current template
 */
public record SetProgress(
    boolean gone,
    boolean settled,
    int desired,
    int replicas,
    int created,
    int removing,
    String message,
    String rollout) {

  public static SetProgress deleted() {
    return new SetProgress(true, true, 0, 0, 0, 0, null, null);
  }
}
