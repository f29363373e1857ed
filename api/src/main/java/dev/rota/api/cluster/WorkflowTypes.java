package dev.rota.api.cluster;

import dev.rota.workflows.cluster.ApplyResult;
import io.micronaut.serde.annotation.SerdeImport;

/** Records from the Micronaut-free workflows module that {@code GET /v1/cluster} serves. */
@SerdeImport(ApplyResult.class)
final class WorkflowTypes {
  private WorkflowTypes() {}
}
