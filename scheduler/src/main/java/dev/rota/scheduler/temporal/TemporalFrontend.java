package dev.rota.scheduler.temporal;

import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.micronaut.core.annotation.Nullable;
import jakarta.inject.Singleton;

/**
 * The Temporal frontend's gRPC health check, the one question {@code /health}, the outage watch and
 * the metrics' {@code rota_temporal_up} ask of it.
 */
@Singleton
public class TemporalFrontend {
  private final WorkflowStubs workflows;

  public TemporalFrontend(WorkflowStubs workflows) {
    this.workflows = workflows;
  }

  /** What it answered ({@code status}), or why it did not ({@code error}). */
  public record Answer(@Nullable ServingStatus status, @Nullable String error) {
    public boolean serving() {
      return status == ServingStatus.SERVING;
    }

    /** Null while it serves; otherwise why not, in a few words. */
    public @Nullable String whyNot() {
      return serving() ? null : status != null ? "it is " + status : error;
    }
  }

  public Answer ask() {
    try {
      return new Answer(
          workflows.client().getWorkflowServiceStubs().healthCheck().getStatus(), null);
    } catch (RuntimeException e) {
      return new Answer(null, String.valueOf(e.getMessage()));
    }
  }
}
