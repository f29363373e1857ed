package dev.rota.workflows;

import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.rota.workflows.cluster.ClusterWorkflowImpl;
import dev.rota.workflows.schedule.ScheduledVmWorkflowImpl;
import dev.rota.workflows.vm.VmWorkflowImpl;
import dev.rota.workflows.vmset.VmSetWorkflowImpl;
import io.temporal.testing.WorkflowReplayer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Replays every stored history against today's workflow code; a failure is a determinism break that
 * needs {@code Workflow.getVersion}. A file's prefix says which workflow wrote it.
 */
class ReplayTest {
  /**
   * The stored histories, read where they are kept (a build's copy may hold some deleted since).
   */
  private static final Path HISTORIES = Path.of("src", "test", "resources", "histories");

  private static final Map<String, Class<?>> WORKFLOWS =
      Map.of(
          "cluster-",
          ClusterWorkflowImpl.class,
          "vm-",
          VmWorkflowImpl.class,
          "vmset-",
          VmSetWorkflowImpl.class,
          "schedule-",
          ScheduledVmWorkflowImpl.class);

  @TestFactory
  Stream<DynamicTest> storedHistoriesReplay() throws IOException {
    Path folder = HISTORIES;
    List<Path> files;
    try (Stream<Path> list = Files.list(folder)) {
      files = list.filter(p -> p.toString().endsWith(".json")).sorted().toList();
    }
    assertFalse(files.isEmpty(), "no stored histories under " + folder);
    for (String prefix : WORKFLOWS.keySet()) {
      assertFalse(
          files.stream().noneMatch(f -> f.getFileName().toString().startsWith(prefix)),
          "no stored history for " + WORKFLOWS.get(prefix).getSimpleName());
    }
    return files.stream()
        .map(file -> DynamicTest.dynamicTest(file.getFileName().toString(), () -> replay(file)));
  }

  /** docs/testing.md says how many histories are stored: the count a contributor keeps true. */
  @org.junit.jupiter.api.Test
  void theDocsCountTheStoredHistories() throws IOException {
    Path folder = HISTORIES;
    long stored;
    try (Stream<Path> list = Files.list(folder)) {
      stored = list.filter(p -> p.toString().endsWith(".json")).count();
    }
    String testing = Files.readString(Path.of("..", "docs", "testing.md"));
    java.util.regex.Matcher said =
        java.util.regex.Pattern.compile("(\\d+) stored histories").matcher(testing);
    org.junit.jupiter.api.Assertions.assertTrue(
        said.find(), "docs/testing.md says how many histories are stored");
    org.junit.jupiter.api.Assertions.assertEquals(
        stored, Long.parseLong(said.group(1)), "docs/testing.md's count of stored histories");
  }

  private static void replay(Path file) throws Exception {
    String name = file.getFileName().toString();
    Class<?> workflow =
        WORKFLOWS.entrySet().stream()
            .filter(e -> name.startsWith(e.getKey()))
            .map(Map.Entry::getValue)
            .findFirst()
            .orElseThrow(
                () ->
                    new AssertionError(
                        name + " has no known workflow prefix " + WORKFLOWS.keySet()));
    WorkflowReplayer.replayWorkflowExecution(Files.readString(file), workflow);
  }
}
