package dev.rota.agent.runtimes;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rota.agent.images.HeldImages;
import dev.rota.agent.tasks.Task;
import dev.rota.agentapi.TaskSpec;
import dev.rota.agentapi.TaskView;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SyntheticRuntimeTest {
  @TempDir Path data;

  @Test
  void withNoStartDelayATaskRunsAsItIsStartedWithoutWaitingForATimer() {
    List<TaskView> changes = new ArrayList<>();
    Task task =
        new Task(
            "vm.0",
            new TaskSpec("vm", 0, "synthetic", null, List.of(), Map.of(), Map.of("cpu", 1L)),
            changes::add);
    // No timers at all: a start that needed one would fail here.
    new SyntheticRuntime(
            null,
            Duration.ZERO,
            new HeldImages(data.resolve("images.json"), new ObjectMapper(), Clock.systemUTC()))
        .start(task);
    assertEquals(List.of("running"), changes.stream().map(TaskView::state).toList());
  }
}
