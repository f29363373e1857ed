package dev.rota.workflows.cluster;

import static org.junit.jupiter.api.Assertions.assertFalse;

import io.temporal.testing.WorkflowReplayer;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/** Replays every stored cluster history against today's workflow code; a failure is a determinism break. */
class ClusterReplayTest {
  @TestFactory
  Stream<DynamicTest> storedHistoriesReplay() throws IOException, URISyntaxException {
    Path folder = Path.of(getClass().getResource("/histories").toURI());
    List<Path> files;
    try (Stream<Path> list = Files.list(folder)) {
      files = list.filter(p -> p.getFileName().toString().startsWith("cluster-")).sorted().toList();
    }
    assertFalse(files.isEmpty(), "no stored cluster histories under " + folder);
    return files.stream()
        .map(
            file ->
                DynamicTest.dynamicTest(
                    file.getFileName().toString(),
                    () ->
                        WorkflowReplayer.replayWorkflowExecution(
                            Files.readString(file), ClusterWorkflowImpl.class)));
  }
}
