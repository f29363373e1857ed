package dev.rota.agentapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class TaskIdTest {
  @Test
  void taskIdsCarryTheVmAndItsRestartCount() {
    assertEquals("build-42.3", TaskId.of("build-42", 3).toString());
    assertEquals(TaskId.of("build-42", 3), TaskId.parse("build-42.3").orElseThrow());
    for (String bad : List.of("build-42", ".3", "a.", "a.b.3", "a.-1", "a.x")) {
      assertTrue(TaskId.parse(bad).isEmpty(), bad);
    }
  }

  @Test
  void statesTravelAsApiMdSpellsThem() {
    for (AgentTaskState s : AgentTaskState.values()) {
      assertEquals(s, AgentTaskState.parse(s.wireName()).orElseThrow());
    }
    assertEquals(
        List.of("starting", "running", "exited", "failed"),
        List.of(AgentTaskState.values()).stream().map(AgentTaskState::wireName).toList());
    assertTrue(AgentTaskState.parse("sleeping").isEmpty());
  }
}
