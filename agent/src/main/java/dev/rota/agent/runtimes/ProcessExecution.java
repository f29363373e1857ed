package dev.rota.agent.runtimes;

import dev.rota.agent.tasks.Execution;
import dev.rota.agentapi.ExecFrames;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * A command run beside a {@code process} task's own, in its environment: the same variables, folder
 * and control groups. Its output goes on as it comes.
 */
final class ProcessExecution implements Execution {
  private final Process process;

  ProcessExecution(Process process) {
    this.process = process;
  }

  @Override
  public OutputStream stdin() {
    return process.getOutputStream();
  }

  @Override
  public int await(ExecFrames.Writer out) throws IOException, InterruptedException {
    Thread stdout = daemon(() -> pump(process.getInputStream(), ExecFrames.STDOUT, out));
    Thread stderr = daemon(() -> pump(process.getErrorStream(), ExecFrames.STDERR, out));
    int code = process.waitFor();
    stdout.join();
    stderr.join();
    return code;
  }

  private void pump(InputStream from, int channel, ExecFrames.Writer out) {
    byte[] buffer = new byte[16 * 1024];
    try (from) {
      int n;
      while ((n = from.read(buffer)) >= 0) {
        out.write(channel, buffer, 0, n);
      }
    } catch (IOException e) {
      cancel(); // the user went away
    }
  }

  @Override
  public void cancel() {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
  }

  private static Thread daemon(Runnable r) {
    Thread t = new Thread(r, "agent-exec");
    t.setDaemon(true);
    t.start();
    return t;
  }
}
