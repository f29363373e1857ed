package dev.rota.workflows;

import io.temporal.common.SearchAttributeKey;
import java.util.List;

/**
 * The typed search attributes Rota's workflows set, so that the Temporal UI can filter VMs by
 * status and worker. They must be registered on the server before any workflow sets them, or
 * workflow tasks fail with BAD_SEARCH_ATTRIBUTES and the workflow stops moving.
 */
public final class RotaSearchAttributes {
  public static final SearchAttributeKey<String> VM_STATUS =
      SearchAttributeKey.forKeyword("RotaVmStatus");
  public static final SearchAttributeKey<String> WORKER =
      SearchAttributeKey.forKeyword("RotaWorker");

  /** Every key Rota uses, for registration at start-up and in test environments. */
  public static final List<SearchAttributeKey<?>> ALL = List.of(VM_STATUS, WORKER);

  private RotaSearchAttributes() {}
}
