package dev.rota.host;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code rota-cli.jar} as its own process, as an operator runs it, against dev mode with its two
 * real agents: a VM created with {@code --wait} runs as a real process, is listed, stopped and
 * deleted; a refusal is one line with its exit code.
 */
class CliJarIT extends SharedDevStack {
  private final ObjectMapper json = new ObjectMapper();

  record Run(int code, String out, String err) {}

  /** {@code rota-cli.jar ARGS} as an operator would run it against the dev stack, not started. */
  private ProcessBuilder cli(String... args) {
    return CliJar.command("http://127.0.0.1:" + stack.port, null, dir.resolve("config.json"), args);
  }

  private Run rota(String... args) throws IOException, InterruptedException {
    ProcessBuilder pb = cli(args);
    Path out = Files.createTempFile(dir, "out", ".txt");
    Path err = Files.createTempFile(dir, "err", ".txt");
    pb.redirectOutput(out.toFile()).redirectError(err.toFile());
    Process p = pb.start();
    if (!p.waitFor(JarProcess.PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor();
      throw new AssertionError(
          "rota "
              + String.join(" ", args)
              + " did not end; its stderr: "
              + Files.readString(err, StandardCharsets.UTF_8)
              + "; workers: "
              + stack.api("GET", "/v1/workers", null)
              + "; vms: "
              + stack.api("GET", "/v1/vms", null));
    }
    return new Run(
        p.exitValue(),
        Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }

  @Test
  void portForwardExecAndConsoleReachAVmThroughTheServer() throws Exception {
    assertEquals(201, stack.api("POST", "/v1/vms", EchoVm.body("fwd", dir)).status());
    eventually("running", () -> "running".equals(stack.vm("fwd").get("status")));
    ProcessBuilder pb = cli("vm", "port-forward", "fwd", "0:web");
    Path err = Files.createTempFile(dir, "err", ".txt");
    pb.redirectError(err.toFile());
    Process forward = pb.start();
    try {
      java.io.BufferedReader lines =
          new java.io.BufferedReader(
              new java.io.InputStreamReader(forward.getInputStream(), StandardCharsets.UTF_8));
      String first = lines.readLine();
      assertTrue(
          first != null && first.startsWith("Forwarding from 127.0.0.1:"),
          first + " / " + Files.readString(err));
      int local = Integer.parseInt(first.split(" ")[2].split(":")[1]);
      // "running" is its process started, not yet listening (the JDK compiles its source first).
      eventually(
          "the VM listens",
          () -> {
            try (java.net.Socket probe = new java.net.Socket("127.0.0.1", local)) {
              probe.shutdownOutput();
              return new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
                  .startsWith("served on ");
            } catch (java.io.IOException e) {
              return false;
            }
          });
      // Two connections at once, each its own both ways.
      try (java.net.Socket a = new java.net.Socket("127.0.0.1", local);
          java.net.Socket b = new java.net.Socket("127.0.0.1", local)) {
        a.getOutputStream().write("first".getBytes());
        b.getOutputStream().write("second".getBytes());
        a.shutdownOutput();
        b.shutdownOutput();
        String fromA = new String(a.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String fromB = new String(b.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(fromA.startsWith("served on ") && fromA.endsWith("\nFIRST"), fromA);
        assertTrue(fromB.endsWith("\nSECOND"), fromB);
      }
      // Megabytes both ways, written faster than they are read: nothing lost, nothing reordered.
      byte[] big = new byte[3 << 20];
      for (int i = 0; i < big.length; i++) {
        big[i] = (byte) ('a' + i % 26);
      }
      try (java.net.Socket c = new java.net.Socket("127.0.0.1", local)) {
        Thread send =
            new Thread(
                () -> {
                  try {
                    c.getOutputStream().write(big);
                    c.shutdownOutput();
                  } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                  }
                });
        send.start();
        byte[] back = c.getInputStream().readAllBytes();
        send.join();
        String text = new String(back, StandardCharsets.US_ASCII);
        String body = text.substring(text.indexOf('\n') + 1);
        assertEquals(
            new String(big, StandardCharsets.US_ASCII).toUpperCase(),
            body,
            "3 MiB through the tunnel and back");
      }
      // The same through stdin and stdout, as ssh's ProxyCommand uses it.
      ProcessBuilder connect = cli("vm", "connect", "fwd", "80");
      connect.redirectInput(
          Files.writeString(Files.createTempFile(dir, "in", ".txt"), "third").toFile());
      Process connected = connect.start();
      String stdout = new String(connected.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(connected.waitFor(60, TimeUnit.SECONDS));
      assertEquals(0, connected.exitValue(), stdout);
      assertTrue(stdout.startsWith("served on ") && stdout.endsWith("\nTHIRD"), stdout);

      // vm ssh runs ssh with vm connect as its ProxyCommand; a stand-in for ssh runs that command
      // as ssh would, with a line on its stdin.
      Path fakeSsh = dir.resolve("fake-ssh");
      Files.writeString(
          fakeSsh,
          "#!/bin/sh\n"
              + "while [ $# -gt 0 ]; do case \"$1\" in -o) case \"$2\" in ProxyCommand=*)"
              + " proxy=\"${2#ProxyCommand=}\";; esac; shift 2;; *) shift;; esac; done\n"
              + "printf ping | sh -c \"$proxy\"\n");
      fakeSsh.toFile().setExecutable(true);
      ProcessBuilder ssh = cli("vm", "ssh", "fwd", "--port", "web");
      ssh.environment().put("ROTA_SSH", fakeSsh.toString());
      Process sshed = ssh.start();
      String through = new String(sshed.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(sshed.waitFor(60, TimeUnit.SECONDS));
      assertEquals(0, sshed.exitValue(), through);
      assertTrue(through.endsWith("\nPING"), through);

      // A command in the VM's environment: its output on each stream, its exit code the CLI's.
      Run ran =
          rota(
              "vm",
              "exec",
              "fwd",
              "--",
              "sh",
              "-c",
              "echo \"port $ROTA_PORT_WEB\"; echo to-stderr >&2; exit 4");
      assertEquals(4, ran.code(), ran.err());
      assertTrue(ran.out().matches("port \\d+\n"), ran.out());
      assertEquals("to-stderr\n", ran.err());
      ProcessBuilder fed = cli("vm", "exec", "-i", "fwd", "--", "tr", "a-z", "A-Z");
      fed.redirectInput(
          Files.writeString(Files.createTempFile(dir, "in", ".txt"), "piped in\n").toFile());
      Process piped = fed.start();
      String upper = new String(piped.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(piped.waitFor(60, TimeUnit.SECONDS));
      assertEquals(0, piped.exitValue());
      assertEquals("PIPED IN\n", upper, "-i: stdin to the command");
      Run console = rota("vm", "console", "fwd");
      assertEquals(1, console.code());
      assertTrue(
          console
              .err()
              .contains("rota: vm console: task fwd.0 has no console: its output is its log"),
          console.err());

      stack.api("POST", "/v1/vms/fwd/stop", null);
      eventually("stopped", () -> "stopped".equals(stack.vm("fwd").get("status")));
      Run stopped = rota("vm", "exec", "fwd", "--", "true");
      assertEquals(1, stopped.code());
      assertEquals("rota: vm exec: vm fwd is stopped, not running\n", stopped.err());
      try (java.net.Socket c = new java.net.Socket("127.0.0.1", local)) {
        assertEquals(-1, c.getInputStream().read(), "a stopped VM's connection is closed at once");
      }
      eventually(
          "and the CLI says why",
          () -> {
            try {
              return Files.readString(err)
                  .contains("rota: vm port-forward: vm fwd is stopped, not running");
            } catch (IOException e) {
              return false;
            }
          });
    } finally {
      forward.destroyForcibly().waitFor();
    }
    stack.api("DELETE", "/v1/vms/fwd", null);
  }

  @Test
  void aVmCreatedWithWaitRunsIsListedStoppedAndDeletedFromTheCommandLine() throws Exception {
    Run created = rota("vm", "create", "cli-vm", "--cpu", "1", "--wait", "--", "sleep", "311");
    assertEquals(0, created.code(), created.err());
    assertTrue(
        created
            .out()
            .lines()
            .skip(1)
            .findFirst()
            .orElseThrow()
            .matches("cli-vm +running +dev-\\S+ +0 .*"),
        created.out());
    assertTrue(
        created.err().contains("vm cli-vm: running on dev-"),
        "progress on stderr: " + created.err());
    eventually("a real process", () -> Stack.processes("sleep 311").size() == 1);

    JsonNode listed = json.readTree(rota("vm", "list", "-o", "json").out());
    assertEquals("running", listed.get("items").get(0).get("status").asText());
    Run workers = rota("worker", "list");
    assertEquals(3, workers.out().lines().count(), workers.out());
    assertTrue(
        workers.out().lines().skip(1).allMatch(l -> l.matches("dev-\\S+ +ready +false .*")),
        workers.out());

    Run stopped = rota("vm", "stop", "cli-vm", "--wait");
    assertEquals(0, stopped.code(), stopped.err());
    assertTrue(stopped.out().contains("stopped"), stopped.out());
    Run again = rota("vm", "stop", "cli-vm");
    assertEquals(4, again.code(), "a conflict: " + again.err());
    assertEquals(1, again.err().lines().count(), again.err());

    Run deleted = rota("vm", "delete", "cli-vm", "--wait");
    assertEquals(0, deleted.code(), deleted.err());
    assertEquals("vm cli-vm deleted\n", deleted.out());
    Run gone = rota("vm", "get", "cli-vm");
    assertEquals(3, gone.code());
    assertTrue(gone.err().startsWith("rota: 404: "), gone.err());
  }

  @Test
  void everyYamlTheCliPrintsIsAppliedBackAsUnchanged() throws Exception {
    assertEquals(
        0,
        rota("vm", "create", "round", "--memory", "256Mi", "-e", "N=3600", "--", "sleep", "3600")
            .code());
    Run set = rota("vm-set", "create", "rounds", "--replicas", "1", "--", "sleep", "312");
    assertEquals(0, set.code(), set.err());
    try {
      Path vm = dir.resolve("round.yaml");
      Files.writeString(vm, rota("vm", "get", "round", "-o", "yaml").out());
      Run applied = rota("apply", "-f", vm.toString());
      assertEquals("vm round unchanged\n", applied.out(), applied.err());

      Path sets = dir.resolve("rounds.yaml");
      Files.writeString(sets, rota("vm-set", "get", "rounds", "-o", "yaml").out());
      assertEquals("vm-set rounds unchanged\n", rota("apply", "-f", sets.toString()).out());

      Path all = dir.resolve("all.yaml");
      Files.writeString(all, rota("vm", "list", "-o", "yaml").out());
      Run everything = rota("apply", "-f", all.toString());
      assertEquals(0, everything.code(), everything.err());
      assertTrue(
          everything.out().lines().allMatch(l -> l.endsWith(" unchanged")), everything.out());
      assertTrue(everything.out().contains("vm rounds-0 unchanged"), everything.out());

      Files.writeString(
          sets,
          rota("vm-set", "get", "rounds", "-o", "yaml")
              .out()
              .replace("replicas: 1", "replicas: 2"));
      assertEquals(
          "vm-set rounds configured (replicas)\n", rota("apply", "-f", sets.toString()).out());
      assertEquals(
          2,
          json.readTree(rota("vm-set", "get", "rounds", "-o", "json").out())
              .get("replicas")
              .asInt());
    } finally {
      rota("vm", "delete", "round", "--wait");
      rota("vm-set", "delete", "rounds");
      eventually(
          "the set's VMs gone",
          () -> !stack.api("GET", "/v1/vms", null).body().contains("\"rounds-"));
    }
  }

  @Test
  void aDrainedWorkersVmRunsOnTheOtherWorkerAndItsOldProcessEnds() throws Exception {
    Run created =
        rota(
            "vm",
            "create",
            "cli-drained",
            "--cpu",
            "1",
            "--restart",
            "Always",
            "--wait",
            "-o",
            "json",
            "--",
            "sleep",
            "312");
    assertEquals(0, created.code(), created.err());
    String from = json.readTree(created.out()).get("worker").asText();
    long oldPid = Stack.processes("sleep 312").get(0).pid();

    Run drained = rota("worker", "drain", from, "--deadline", "10m", "--wait");
    assertEquals(0, drained.code(), drained.err());
    assertTrue(
        drained
            .out()
            .lines()
            .skip(1)
            .findFirst()
            .orElseThrow()
            .matches(from + " +ready +true +drained .*"),
        drained.out());
    JsonNode vm = json.readTree(rota("vm", "get", "cli-drained", "-o", "json").out());
    assertEquals("running", vm.get("status").asText());
    assertNotEquals(from, vm.get("worker").asText(), "moved to the other worker");
    assertEquals(1, vm.get("restartCount").asInt(), "as its next generation");
    eventually(
        "the old copy's process ended",
        () -> Stack.processes("sleep 312").stream().noneMatch(p -> p.pid() == oldPid));
    eventually("one copy runs", () -> Stack.processes("sleep 312").size() == 1);
    Run events = rota("vm", "events", "cli-drained");
    assertTrue(events.out().contains("worker " + from + " is draining"), events.out());

    Run resumed = rota("worker", "resume", from);
    assertEquals(0, resumed.code(), resumed.err());
    assertTrue(
        resumed
            .out()
            .lines()
            .skip(1)
            .findFirst()
            .orElseThrow()
            .matches(from + " +ready +false +- .*"),
        resumed.out());
    assertEquals(0, rota("vm", "delete", "cli-drained", "--wait").code());
  }

  @Test
  void badInputIsRefusedByTheServerInOneLineWithExit2() throws Exception {
    Run bad = rota("vm", "create", "no-command");
    assertEquals(2, bad.code(), bad.err());
    assertEquals(1, bad.err().lines().count(), bad.err());
    assertTrue(bad.err().startsWith("rota: 400: ") && bad.err().contains("command"), bad.err());
    assertEquals(404, stack.api("GET", "/v1/vms/no-command", null).status(), "nothing was made");
  }
}
