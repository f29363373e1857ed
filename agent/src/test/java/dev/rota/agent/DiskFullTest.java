package dev.rota.agent;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.agent.config.AgentConfig;
import dev.rota.testing.Needs;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's data folder full (a 1 MiB tmpfs, filled): a start that cannot be recorded fails
 * saying so and leaves no process behind (unrecorded, a restarted agent could not find it, and the
 * controller would start the VM elsewhere); a running task keeps running and is found again by an
 * agent restarted on the full disk; once there is room, tasks start again. Needs root to mount the
 * tmpfs; skipped otherwise.
 */
class DiskFullTest {
  @TempDir Path dir;
  private Path data;
  private Agent agent;
  private AgentCalls calls;

  @AfterEach
  void stop() throws Exception {
    if (agent != null) {
      agent.close();
    }
    for (String sleep : List.of("3321", "3322", "3323")) {
      for (ProcessHandle p : AgentCalls.processes("sleep " + sleep)) {
        // Gone before the unmount: a process that still has the tmpfs as its folder keeps it busy.
        p.destroyForcibly();
        p.onExit().get(10, java.util.concurrent.TimeUnit.SECONDS);
      }
    }
    if (data != null) {
      // Lazily, as DiskFullIT does: what still holds the tmpfs lets go of it when it exits.
      new ProcessBuilder("umount", "-l", data.toString()).start().waitFor();
    }
  }

  private void mount() throws Exception {
    Path folder = Files.createDirectories(dir.resolve("data"));
    int mounted =
        new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", folder.toString())
            .redirectErrorStream(true)
            .start()
            .waitFor();
    Needs.had(
        mounted == 0, "cannot mount a tmpfs here (needs root): the full-disk test is skipped");
    data = folder;
  }

  private void agent() {
    agent =
        Agent.start(
            AgentConfig.from(
                Map.of(
                    "ROTA_CONTROLLER_URL", "http://127.0.0.1:9",
                    "ROTA_WORKER_NAME", "full-1",
                    "ROTA_AGENT_PORT", "0",
                    "ROTA_AGENT_DATA_DIR", data.toString(),
                    "ROTA_AGENT_STOP_GRACE", "300ms",
                    "ROTA_AGENT_INSECURE_HTTP", "true",
                    "ROTA_WORKER_RUNTIMES", "process"),
                new String[0]));
    calls = new AgentCalls(agent);
  }

  /** Fills the file system of {@code data} but for {@code spare} bytes. */
  private Path fill(long spare) throws IOException {
    Path filler = data.resolve("filler");
    byte[] block = new byte[4096];
    try (OutputStream out = Files.newOutputStream(filler)) {
      while (Files.getFileStore(data).getUsableSpace() > spare) {
        out.write(block);
        out.flush();
      }
    }
    return filler;
  }

  @Test
  void aStartThatCannotBeRecordedLeavesNoProcessAndRunningTasksAreKept() throws Exception {
    mount();
    agent();
    assertEquals(201, calls.putSleep("kept", "3321"));
    eventually("running", () -> "running".equals(calls.task("kept.0").get("state")));

    // Room for the task's first record, not for the one that names its process: it starts, then
    // cannot be recorded.
    Path filler = fill(4096);
    assertEquals(201, calls.putSleep("late", "3322"));
    eventually("failed", () -> "failed".equals(calls.task("late.0").get("state")));
    String message = (String) calls.task("late.0").get("message");
    assertTrue(
        message.startsWith("cannot start sleep: ") && message.contains("No space left on device"),
        message);
    eventually("no process of it left", () -> AgentCalls.processes("sleep 3322").isEmpty());

    fill(0);
    agent.close(); // its tasks run on, as after a SIGKILL
    agent = null;
    agent();
    assertEquals(
        "running",
        calls.task("kept.0").get("state"),
        "found again by an agent restarted on the full disk");
    assertEquals(1, AgentCalls.processes("sleep 3321").size(), "the same one process");

    Files.delete(filler);
    assertEquals(201, calls.putSleep("after", "3323"));
    eventually("room again: it runs", () -> "running".equals(calls.task("after.0").get("state")));
  }
}
