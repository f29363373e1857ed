package dev.rota.scheduler.temporal;

import io.temporal.api.workflowservice.v1.GetSystemInfoRequest;
import jakarta.inject.Singleton;

/**
 * Whether a quiet term may rest in its activity ({@code QuietTerms}), decided from the Temporal
 * server in use, asked once: a Temporal server names its version, and lets it; the Java test server
 * (dev mode's {@code embedded} one, the tests') names none, and refuses for good a workflow task
 * whose cancel races the activity's completion, which resting would risk at every wake-up.
 */
@Singleton
public class QuietTermsRest {
  private final WorkflowStubs workflows;
  private volatile Boolean allowed;

  public QuietTermsRest(WorkflowStubs workflows) {
    this.workflows = workflows;
  }

  /** Whether quiet terms rest; false while the server cannot be asked (asked again next time). */
  public boolean allowed() {
    Boolean known = allowed;
    if (known == null) {
      try {
        known = !serverVersion().isEmpty();
      } catch (RuntimeException e) {
        return false; // a term that does not rest is only busier
      }
      allowed = known;
    }
    return known;
  }

  private String serverVersion() {
    return workflows
        .client()
        .getWorkflowServiceStubs()
        .blockingStub()
        .withDeadlineAfter(5, java.util.concurrent.TimeUnit.SECONDS)
        .getSystemInfo(GetSystemInfoRequest.getDefaultInstance())
        .getServerVersion();
  }
}
