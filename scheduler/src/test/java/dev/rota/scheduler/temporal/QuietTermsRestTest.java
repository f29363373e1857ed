package dev.rota.scheduler.temporal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.grpc.Status;
import io.temporal.client.WorkflowClient;
import io.temporal.testing.TestWorkflowEnvironment;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Whether quiet terms rest is asked of the server in use. The Temporal server's side (it names its
 * version, and quiet terms rest) is held by {@code DevCliJarIT}, on the CLI's dev server.
 */
class QuietTermsRestTest {
  private int asked;

  private QuietTermsRest askingOf(Supplier<WorkflowClient> client) {
    return new QuietTermsRest(
        new WorkflowStubs(
            () -> {
              asked++;
              return client.get();
            }));
  }

  @Test
  void theJavaTestServerNamesNoVersionSoQuietTermsDoNotRestOnIt() {
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance()) {
      QuietTermsRest rest = askingOf(env::getWorkflowClient);
      assertFalse(rest.allowed());
      assertFalse(rest.allowed());
      assertEquals(1, asked, "asked once");
    }
  }

  @Test
  void aServerThatCannotBeAskedLetsNoTermRestAndIsAskedAgain() {
    QuietTermsRest rest =
        askingOf(
            () -> {
              throw Status.UNAVAILABLE.withDescription("refused").asRuntimeException();
            });
    assertFalse(rest.allowed());
    assertFalse(rest.allowed());
    assertEquals(2, asked);
  }
}
