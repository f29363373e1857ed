package dev.rota.workflows;

import io.temporal.client.WorkflowClient;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.WorkflowReplayer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Replays a history a test just produced and, when run with {@code -Drota.recordHistories=true}
 * from the workflows module's folder, stores it under its test resources, where {@link ReplayTest}
 * replays it on every later build; from another module add {@code
 * -Drota.historiesDir=../workflows/src/test/resources/histories}. Record anew only for a change
 * that is meant to be incompatible.
 */
public final class Histories {
  private Histories() {}

  public static void replayAndMaybeRecord(
      WorkflowClient client, String workflowId, Class<?> workflow, String name) throws Exception {
    replayAndMaybeRecord(client.fetchHistory(workflowId), workflow, name);
  }

  /**
   * The same for one run of the workflow, not necessarily its latest (a run that continued as new).
   */
  public static void replayAndMaybeRecord(
      WorkflowClient client, String workflowId, String runId, Class<?> workflow, String name)
      throws Exception {
    replayAndMaybeRecord(client.fetchHistory(workflowId, runId), workflow, name);
  }

  private static void replayAndMaybeRecord(
      WorkflowExecutionHistory history, Class<?> workflow, String name) throws Exception {
    WorkflowReplayer.replayWorkflowExecution(history, workflow);
    if (Boolean.getBoolean("rota.recordHistories")) {
      Path file =
          Path.of(
              System.getProperty("rota.historiesDir", "src/test/resources/histories"),
              name + ".json");
      try {
        Files.createDirectories(file.getParent());
        Files.writeString(file, history.toJson(true));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** The summaries a workflow's history shows in the Temporal UI (activities, timers), in order. */
  public static java.util.List<String> summaries(
      io.temporal.client.WorkflowClient client, String workflowId) {
    return client.fetchHistory(workflowId).getEvents().stream()
        .filter(e -> e.hasUserMetadata() && e.getUserMetadata().hasSummary())
        .map(
            e ->
                io.temporal.common.converter.DefaultDataConverter.STANDARD_INSTANCE.fromPayload(
                    e.getUserMetadata().getSummary(), String.class, String.class))
        .toList();
  }
}
