package dev.rota.host;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code rota-cli.jar} in a real terminal (tmux), against dev mode with real agents: {@code --wait}
 * keeps one progress line, rewritten in place, then prints the table; an error is one line. {@code
 * .ci/run} installs tmux ({@code .ci/tmux}); without it this test is skipped, saying so.
 */
class CliTerminalIT {
  @TempDir static Path dir;
  static Stack stack;

  @BeforeAll
  static void start() {
    Assumptions.assumeTrue(
        tmux(), "no tmux here (.ci/tmux install puts it in place): the terminal test is skipped");
    stack = Stack.withAgentsReady(dir.resolve("data"));
  }

  @AfterAll
  static void stop() {
    if (stack != null) {
      stack.close();
    }
  }

  private static boolean tmux() {
    try {
      return new ProcessBuilder("tmux", "-V").redirectErrorStream(true).start().waitFor() == 0;
    } catch (IOException | InterruptedException e) {
      return false;
    }
  }

  private static String tmux(String... args) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(List.of(args)).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor();
    return out;
  }

  @Test
  void waitKeepsOneProgressLineRewrittenInPlaceAndErrorsAreOneLine() throws Exception {
    String jar = System.getProperty("rota.cli.jar");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String rota = java + " -jar " + jar;
    Path script = dir.resolve("session.sh");
    Files.writeString(
        script,
        String.join(
            "\n",
            "export ROTA_SERVER=http://127.0.0.1:"
                + stack.port
                + " ROTA_CONFIG="
                + dir.resolve("config.json"),
            rota + " vm create tty-vm --wait -- sleep 313; echo \"EXIT=$?\"",
            rota + " vm get nobody; echo \"EXIT=$?\"",
            "sleep 600",
            ""));
    String session = "rota-cli-" + UUID.randomUUID().toString().substring(0, 8);
    tmux("tmux", "new-session", "-d", "-s", session, "-x", "200", "-y", "50", "bash " + script);
    try {
      String[] pane = {""};
      eventually(
          "both commands ended",
          () -> {
            try {
              pane[0] = tmux("tmux", "capture-pane", "-p", "-t", session);
            } catch (IOException | InterruptedException e) {
              return false;
            }
            return pane[0].lines().filter(l -> l.startsWith("EXIT=")).count() == 2;
          });
      List<String> lines = pane[0].lines().filter(l -> !l.isBlank()).toList();
      assertEquals(
          1,
          lines.stream().filter(l -> l.startsWith("vm tty-vm: ")).count(),
          "one progress line, rewritten in place:\n" + pane[0]);
      assertTrue(
          lines.stream().anyMatch(l -> l.matches("vm tty-vm: running on dev-\\S+.* \\(\\d+s\\)")),
          pane[0]);
      assertTrue(
          lines.stream().anyMatch(l -> l.matches("tty-vm +running +dev-\\S+ +0 .*")), pane[0]);
      assertEquals(
          List.of("EXIT=0", "EXIT=3"),
          lines.stream().filter(l -> l.startsWith("EXIT=")).toList(),
          pane[0]);
      assertTrue(
          lines.contains("rota: 404: vm 'nobody' not found")
              || lines.stream().anyMatch(l -> l.startsWith("rota: 404: ")),
          pane[0]);
    } finally {
      tmux("tmux", "kill-session", "-t", session);
      stack.api("DELETE", "/v1/vms/tty-vm", null);
    }
  }
}
