package dev.rota.host;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.testing.CiScript;
import dev.rota.testing.Needs;
import dev.rota.testing.TestGuest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
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
    CiScript.run(".ci/tmux", "install").needed("tmux");
    stack = Stack.withAgentsReady(dir.resolve("data"));
  }

  @AfterAll
  static void stop() {
    if (stack != null) {
      stack.close();
    }
  }

  private static String tmux(String... args) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(List.of(args)).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor();
    return out;
  }

  /** A script for the terminal: the CLI jar pointed at the stack, then {@code lines}. */
  private static Path script(String name, java.util.function.Function<String, List<String>> lines)
      throws IOException {
    String rota =
        Path.of(System.getProperty("java.home"), "bin", "java")
            + " -jar "
            + System.getProperty("rota.cli.jar");
    List<String> all = new java.util.ArrayList<>();
    all.add(
        "export ROTA_SERVER=http://127.0.0.1:"
            + stack.port
            + " ROTA_CONFIG="
            + dir.resolve("config.json"));
    all.addAll(lines.apply(rota));
    all.add("sleep 600");
    all.add("");
    return Files.writeString(dir.resolve(name), String.join("\n", all));
  }

  @Test
  void waitKeepsOneProgressLineRewrittenInPlaceAndErrorsAreOneLine() throws Exception {
    Path script =
        script(
            "session.sh",
            rota ->
                List.of(
                    rota + " vm create tty-vm --wait -- sleep 313; echo \"EXIT=$?\"",
                    rota + " vm get nobody; echo \"EXIT=$?\""));
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

  @Test
  void aQemuGuestIsReachedThroughTheServerBySshExecPortAndConsoleInATerminal() throws Exception {
    TestGuest guest = TestGuest.get();
    // The user's key, handed to the guest on its seed; the user's own ssh logs in with it.
    Path key = dir.resolve("id_ed25519");
    Process keygen =
        new ProcessBuilder("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key.toString())
            .redirectErrorStream(true)
            .start();
    keygen.getInputStream().readAllBytes();
    Needs.had(keygen.waitFor() == 0, "no ssh-keygen here (.ci/qemu install has it)");
    String publicKey = Files.readString(dir.resolve("id_ed25519.pub")).strip();
    Path ssh =
        Files.writeString(
            dir.resolve("ssh"),
            // As a script runs it: never asking. The guest's key is new, and taken (accept-new).
            "#!/bin/sh\nexec ssh -o BatchMode=yes -o LogLevel=ERROR \"$@\"\n");
    ssh.toFile().setExecutable(true);
    String vm =
        "{\"name\":\"g\",\"runtime\":\"qemu\",\"resources\":{\"cpu\":1,\"memory\":128},"
            + "\"ports\":[{\"name\":\"echo\",\"port\":7},{\"name\":\"ssh\",\"port\":22}],"
            + "\"guest\":{\"kernel\":\""
            + guest.kernel().toUri()
            + "\",\"initrd\":\""
            + guest.initrd().toUri()
            + "\",\"kernelArgs\":\"quiet rota.test=run\",\"sshKeys\":[\""
            + publicKey
            + "\"],\"startupScript\":\"echo started-by-its-seed\"}}";
    RotaClient.Reply created = stack.api("POST", "/v1/vms", vm);
    assertEquals(201, created.status(), created.body());
    Path script =
        script(
            "guest.sh",
            rota ->
                List.of(
                    rota
                        + " vm exec g -- sh -c 'echo in-guest-$(uname -s); exit 5'; echo \"EXIT=$?\"",
                    "echo hello-echo | " + rota + " vm connect g echo; echo \"EXIT=$?\"",
                    "ROTA_SSH="
                        + ssh
                        + " "
                        + rota
                        + " vm ssh g -l root -i "
                        + key
                        + " echo in-ssh-$((6*7)); echo \"EXIT=$?\"",
                    rota + " vm console g; echo \"EXIT=$?\""));
    String session = "rota-guest-" + UUID.randomUUID().toString().substring(0, 8);
    try {
      eventually(
          "the guest is up, its services started",
          java.time.Duration.ofMinutes(3),
          () -> stack.api("GET", "/v1/vms/g/logs", null).body().contains("ROTA-GUEST-ALIVE"));
      tmux("tmux", "new-session", "-d", "-s", session, "-x", "200", "-y", "50", "bash " + script);
      String[] pane = {""};
      java.util.function.Predicate<String> shown =
          text -> {
            try {
              pane[0] = tmux("tmux", "capture-pane", "-p", "-t", session);
            } catch (IOException | InterruptedException e) {
              return false;
            }
            return pane[0].contains(text);
          };
      eventually("attached to the console", () -> shown.test("Connected to vm g's console"));
      tmux("tmux", "send-keys", "-t", session, "echo ROTA-$((6*7))", "Enter");
      eventually("the guest's shell answered", () -> shown.test("ROTA-42"));
      tmux("tmux", "send-keys", "-t", session, "C-]");
      eventually("detached", () -> shown.test("Detached from vm g's console"));
      eventually(
          "the last command ended",
          () ->
              shown.test("EXIT=0\n")
                  && pane[0].lines().filter(l -> l.startsWith("EXIT=")).count() == 4);
      List<String> lines = pane[0].lines().toList();
      assertEquals(
          List.of("EXIT=5", "EXIT=0", "EXIT=0", "EXIT=0"),
          lines.stream().filter(l -> l.startsWith("EXIT=")).toList(),
          "exec's code is the command's; connect, ssh and a detach end well:\n" + pane[0]);
      assertTrue(
          lines.contains("in-ssh-42"),
          "ssh logged in with the key its seed gave, through the server, and ran the command"
              + " given without --:\n"
              + pane[0]);
      assertTrue(
          Files.readString(dir.resolve("known_hosts")).startsWith("rota-vm-g-"),
          "the guest's key kept in Rota's known_hosts under its submission's alias");
      assertTrue(
          stack
              .api("GET", "/v1/vms/g/logs", null)
              .body()
              .contains("ROTA-GUEST-STARTUP started-by-its-seed"),
          "its startup script ran");
      assertTrue(lines.contains("in-guest-Linux"), "exec ran in the guest:\n" + pane[0]);
      assertTrue(lines.contains("hello-echo"), "the guest's echo port answered:\n" + pane[0]);
      assertEquals("running", stack.vm("g").get("status"), "a detach leaves the VM running");
    } finally {
      tmux("tmux", "kill-session", "-t", session);
      stack.api("DELETE", "/v1/vms/g", null);
    }
  }
}
