package dev.rota.scheduler.agents;

import dev.rota.agentapi.TaskView;
import java.util.List;

/** What probing one agent found: its task list if it answered and is ready, else why not. */
public record Probe(boolean answered, List<TaskView> tasks, String error) {
  public static Probe answered(List<TaskView> tasks) {
    return new Probe(true, tasks, null);
  }

  public static Probe failed(String error) {
    return new Probe(false, List.of(), error);
  }
}
