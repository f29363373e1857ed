package dev.rota.control;

import dev.rota.workflows.TaskQueues;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Workflows begun by a build from before the release line: this code does not replay their
 * histories, and no host polls their task queues ({@link TaskQueues#BEFORE_THE_LINE}), so they
 * would wait for ever, and hold their ids against the new runs. A host at start ends them, saying
 * why; the scheduler's start and the keeper's restore then begin each again from the database, as
 * after Temporal lost them, and a VM's new run adopts its running task, which runs on.
 */
@Singleton
public class EarlierLineWorkflows {
  private static final Logger log = LoggerFactory.getLogger(EarlierLineWorkflows.class);

  static final String WHY =
      "begun before release line "
          + TaskQueues.LINE
          + ", whose code does not replay it: started again from the database";

  private final ControlWorkflows workflows;

  public EarlierLineWorkflows(ControlWorkflows workflows) {
    this.workflows = workflows;
  }

  /** Ends every open workflow on an earlier line's queues; returns their ids. */
  public List<String> end() {
    String query =
        "ExecutionStatus = 'Running' AND ("
            + TaskQueues.BEFORE_THE_LINE.stream()
                .map(q -> "TaskQueue = '" + q + "'")
                .collect(Collectors.joining(" OR "))
            + ")";
    List<String> ended = new ArrayList<>();
    try {
      for (var run : workflows.open(query)) {
        workflows.terminate(run, WHY);
        ended.add(run.getWorkflowId());
      }
    } catch (io.grpc.StatusRuntimeException e) {
      // A server that cannot list (the in-process one) keeps nothing from an earlier build.
      log.debug("could not list workflows of an earlier line: {}", e.toString());
    }
    if (!ended.isEmpty()) {
      log.warn(
          "ended {} begun before release line {} ({}{}); each starts again from the database",
          ended.size() == 1 ? "1 workflow" : ended.size() + " workflows",
          TaskQueues.LINE,
          String.join(", ", ended.subList(0, Math.min(5, ended.size()))),
          ended.size() > 5 ? ", …" : "");
    }
    return ended;
  }
}
