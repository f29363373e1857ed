package dev.rota.workflows;

import dev.rota.workflows.vm.VmRecord;
import io.temporal.common.SearchAttributeKey;
import io.temporal.common.SearchAttributes;
import java.util.List;

/**
 * The typed search attributes Rota's workflows set, so that the Temporal UI can filter VMs by
 * status, worker, set, restarts and how they last ended. They must be registered on the server
 * before any workflow sets them, or workflow tasks fail with BAD_SEARCH_ATTRIBUTES and the workflow
 * stops moving.
 */
public final class RotaSearchAttributes {
  public static final SearchAttributeKey<String> VM_STATUS =
      SearchAttributeKey.forKeyword("RotaVmStatus");
  public static final SearchAttributeKey<String> WORKER =
      SearchAttributeKey.forKeyword("RotaWorker");

  /** The set a VM is a replica of; absent for a VM of its own. Set when its run starts. */
  public static final SearchAttributeKey<String> VM_SET =
      SearchAttributeKey.forKeyword("RotaVmSet");

  /** How many times the VM was started again (its generation, {@code restartCount}). */
  public static final SearchAttributeKey<Long> RESTARTS =
      SearchAttributeKey.forLong("RotaRestarts");

  /**
   * How its last task ended: {@code exit 3}, or, for a failure with no exit code, the reason's
   * first words ({@code worker w1 went offline}); absent until a task has ended.
   */
  public static final SearchAttributeKey<String> LAST_EXIT =
      SearchAttributeKey.forKeyword("RotaLastExit");

  /** Every key Rota uses, for registration at start-up and in test environments. */
  public static final List<SearchAttributeKey<?>> ALL =
      List.of(VM_STATUS, WORKER, VM_SET, RESTARTS, LAST_EXIT);

  /**
   * What a VM's workflow is started with: the VM as its row stands then (its status, worker and
   * restarts), and its set. A VM's workflow starts once its burst has run it, so the worker is
   * shown from the start, not by an upsert in the first workflow task.
   */
  public static SearchAttributes atStart(VmRecord vm, String vmSet) {
    SearchAttributes.Builder attributes =
        SearchAttributes.newBuilder()
            .set(VM_STATUS, vm.status())
            .set(RESTARTS, (long) vm.restartCount());
    if (vm.worker() != null) {
      attributes.set(WORKER, vm.worker());
    }
    if (vmSet != null) {
      attributes.set(VM_SET, vmSet);
    }
    return attributes.build();
  }

  /** Whether {@code shown} shows a VM of this status, worker and restarts, and no last exit. */
  public static boolean shows(SearchAttributes shown, String status, String worker, int restarts) {
    return status.equals(shown.get(VM_STATUS))
        && java.util.Objects.equals(worker, shown.get(WORKER))
        && Long.valueOf(restarts).equals(shown.get(RESTARTS))
        && shown.get(LAST_EXIT) == null;
  }

  private RotaSearchAttributes() {}
}
