package dev.rota.agent.tasks;

import dev.rota.agentapi.ExecFrames;
import java.io.IOException;
import java.io.OutputStream;

/**
 * A command started in a task's environment ({@link TaskRuntime#exec}), to be carried to its end.
 */
public interface Execution {
  /** Where what the user sends goes; closed when the user has finished sending. */
  OutputStream stdin();

  /** Sends its output on as it comes; returns its exit code when it has ended. */
  int await(ExecFrames.Writer out) throws IOException, InterruptedException;

  /** Ends it early: the user went away. */
  void cancel();
}
