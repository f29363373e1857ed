package dev.rota.host.temporal;

import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.micronaut.core.annotation.Nullable;
import io.temporal.serviceclient.WorkflowServiceStubs;
import jakarta.inject.Singleton;

/**
 * The Temporal frontend's gRPC health check, the one question both {@code /health} and the outage
 * watch ask of it.
 */
@Singleton
public class TemporalFrontend {
  private final WorkflowServiceStubs stubs;

  public TemporalFrontend(WorkflowServiceStubs stubs) {
    this.stubs = stubs;
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
      return new Answer(stubs.healthCheck().getStatus(), null);
    } catch (RuntimeException e) {
      return new Answer(null, String.valueOf(e.getMessage()));
    }
  }
}
