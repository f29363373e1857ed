package dev.rota.agent;

import java.time.Duration;

/** A way to run tasks; the task reports its own state changes. */
interface TaskRuntime {
  /** Starts the task; a task that cannot start is marked failed with the reason, not thrown. */
  void start(Task task);

  /** Ends the task, gently first: it gets {@code grace} before it is killed. Blocks until it ended. */
  void stop(Task task, Duration grace);
}
