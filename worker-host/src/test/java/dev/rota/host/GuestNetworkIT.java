package dev.rota.host;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.testing.TestGuest;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Guests held to their network modes, on a real worker: its agent runs in a network namespace of
 * the test's, behind which a second one plays the rest of the world ({@link GuestInternet}: a
 * cloud's metadata server, public and private addresses, a server on the worker's loopback). Three
 * test guests boot there, one per mode, and from inside each (a command through its guest agent,
 * {@code rota vm exec}) try every address: only those its mode allows answer. The one cut off still
 * serves its forwarded port through {@code rota vm port-forward}, is ready once its guest answers
 * there, and, its service killed from inside, fails its liveness check and is restarted.
 */
class GuestNetworkIT {
  private static final Duration BOOT = Duration.ofMinutes(3);

  @Test
  void eachGuestReachesOnlyWhatItsModeAllowsAndItsForwardedPortStillServes() throws Exception {
    TestGuest guest = TestGuest.get();
    Path dir = ProductionStack.folder("guest-network");
    int loopbackPort = FreePorts.next();
    // A guest's control sockets must have paths of at most 107 bytes: the agent's data goes in a
    // short folder, under one that only root may pass through, as guests' users need not.
    Path agentData = Files.createTempDirectory("rota-gn").resolve("w1");
    try (NetworkNamespace net = NetworkNamespace.create();
        GuestInternet world = GuestInternet.around(net.name(), loopbackPort);
        ProductionStack stack =
            ProductionStack.start(
                dir,
                1,
                List.of(
                    new ProductionStack.AgentPlace(
                        net.name(),
                        net.address(),
                        Map.of(
                            "ROTA_WORKER_RUNTIMES",
                            "qemu",
                            "ROTA_AGENT_GUEST_ALLOW",
                            "10.99.0.1",
                            "ROTA_AGENT_DATA_DIR",
                            agentData.toString()))),
                Map.of("ROTA_SCHEDULER_INTERVAL", "1s", "ROTA_API_INSECURE_HTTP", "true"),
                RealServices.newPostgresDatabase(),
                false,
                net.hostAddress(),
                RealServices::temporal)) {
      RotaClient api = stack.admin(0);
      Map<String, Object> worker = api.api("GET", "/v1/workers/w1", null).map();
      assertEquals(
          "confined",
          ((Map<?, ?>) worker.get("labels")).get("rota.dev/guest-isolation"),
          "the worker confines guests: " + worker);

      String agent = net.address() + ":" + agentPort(stack, api);
      Map<String, String> networks =
          Map.of(
              "open", "",
              "shut",
                  ",\"network\":{\"egress\":\"none\"},\"restartPolicy\":\"OnFailure\""
                      + ",\"readiness\":{\"tcp\":{\"port\":\"echo\"},\"period\":\"1s\"}"
                      + ",\"liveness\":{\"tcp\":{\"port\":\"echo\"},\"period\":\"1s\","
                      + "\"failureThreshold\":2}",
              "listed",
                  ",\"network\":{\"egress\":\"allow\",\"allow\":[\"203.0.113.7\",\"169.254.169.254/32\"]}");
      for (Map.Entry<String, String> vm : networks.entrySet()) {
        RotaClient.Reply created =
            api.api("POST", "/v1/vms", vm(vm.getKey(), guest, vm.getValue()));
        assertEquals(201, created.status(), created.body());
      }
      Map<String, Object> listed = api.vm("listed");
      assertEquals(
          Map.of("egress", "allow", "allow", List.of("203.0.113.7/32", "169.254.169.254/32")),
          listed.get("network"),
          "the VM's view shows its network");
      assertEquals("required", listed.get("isolation"));
      for (String vm : networks.keySet()) {
        try {
          eventually(
              vm + "'s guest is up",
              BOOT,
              () ->
                  api.api("GET", "/v1/vms/" + vm + "/logs", null)
                          .body()
                          .contains("ROTA-GUEST-ALIVE")
                      && Boolean.TRUE.equals(api.vm(vm).get("ready")));
        } catch (AssertionError e) {
          throw new AssertionError(
              e.getMessage() + ": " + api.vm(vm) + " " + api.eventTypes(vm), e);
        }
      }

      List<String> targets =
          List.of(
              "10.0.2.2:"
                  + loopbackPort, // the worker's loopback, as QEMU's user-mode stack maps it
              agent, // the agent's own port, on the worker's address
              "10.0.2.2:" + agent.substring(agent.indexOf(':') + 1),
              GuestInternet.METADATA,
              GuestInternet.PUBLIC,
              GuestInternet.OTHER_PUBLIC,
              GuestInternet.PRIVATE_ALLOWED,
              GuestInternet.PRIVATE);
      Map<String, List<String>> answered = new java.util.concurrent.ConcurrentSkipListMap<>();
      List<Thread> probing = new ArrayList<>();
      java.util.Set<Throwable> failures = java.util.concurrent.ConcurrentHashMap.newKeySet();
      for (String vm : networks.keySet()) {
        Thread t =
            new Thread(
                () -> {
                  try {
                    answered.put(vm, reached(stack, vm, targets));
                  } catch (Throwable e) {
                    failures.add(e);
                  }
                });
        t.start();
        probing.add(t);
      }
      for (Thread t : probing) {
        t.join();
      }
      assertEquals(java.util.Set.of(), failures, "every guest was asked");
      assertEquals(
          Map.of(
              "open", List.of("other-public", "private-allowed", "public"),
              "shut", List.of(),
              "listed", List.of("public")),
          answered,
          "what each guest reached");

      // Cut off as it is, the guest still serves its forwarded port.
      Process forward =
          cli(stack, "vm", "port-forward", "shut", "0:echo")
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .start();
      try {
        String first =
            new BufferedReader(
                    new InputStreamReader(forward.getInputStream(), StandardCharsets.UTF_8))
                .readLine();
        assertTrue(first != null && first.startsWith("Forwarding from 127.0.0.1:"), first);
        int local = Integer.parseInt(first.split(" ")[2].split(":")[1]);
        try (Socket echo = new Socket("127.0.0.1", local)) {
          echo.getOutputStream().write("through the forward\n".getBytes(StandardCharsets.UTF_8));
          echo.shutdownOutput();
          assertEquals(
              "through the forward\n",
              new String(echo.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        }
      } finally {
        forward.destroy();
      }

      // Ready on that port, through a network that lets nothing out; its service killed from
      // inside, its liveness check fails and it is restarted under its policy, the check named.
      assertEquals(true, api.vm("shut").get("ready"), "ready on its echo port: " + api.vm("shut"));
      Process kill =
          cli(stack, "vm", "exec", "shut", "--", "sh", "-c", "killall nc")
              .redirectErrorStream(true)
              .start();
      kill.getInputStream().readAllBytes(); // its answer may be lost as the guest powers down
      assertTrue(kill.waitFor(2, TimeUnit.MINUTES));
      eventually(
          "restarted for its liveness, and ready again",
          BOOT,
          () -> {
            Map<String, Object> v = api.vm("shut");
            return ((Number) v.get("restartCount")).intValue() == 1
                && Boolean.TRUE.equals(v.get("ready"));
          });
      assertTrue(
          api.items("/v1/vms/shut/events?limit=1000").stream()
              .anyMatch(
                  e ->
                      String.valueOf(e.get("message"))
                          .contains("liveness check tcp on port echo failed 2 times")),
          "an event names the check: " + api.items("/v1/vms/shut/events?limit=1000"));
    } finally {
      try (var files = Files.walk(agentData.getParent())) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      }
    }
  }

  /** A VM of the test guest, booted from its kernel, serving its echo port. */
  private static String vm(String name, TestGuest guest, String network) {
    return "{\"name\":\""
        + name
        + "\",\"runtime\":\"qemu\",\"resources\":{\"cpu\":1,\"memory\":128},"
        + "\"ports\":[{\"name\":\"echo\",\"port\":7}],\"guest\":{\"kernel\":\""
        + guest.kernel().toUri()
        + "\",\"initrd\":\""
        + guest.initrd().toUri()
        + "\",\"kernelArgs\":\"quiet rota.test=run\"}"
        + network
        + "}";
  }

  /** The names of the servers {@code vm}'s guest reached, in alphabetical order. */
  private static List<String> reached(ProductionStack stack, String vm, List<String> targets)
      throws IOException, InterruptedException {
    StringBuilder script = new StringBuilder();
    for (String t : targets) {
      String host = t.substring(0, t.lastIndexOf(':'));
      String port = t.substring(t.lastIndexOf(':') + 1);
      // All at once: a connection nothing answers waits out its 3 s.
      script
          .append("nc -w 3 ")
          .append(host)
          .append(' ')
          .append(port)
          .append(" </dev/null 2>/dev/null & ");
    }
    script.append("wait");
    Process p =
        cli(stack, "vm", "exec", vm, "--", "sh", "-c", script.toString())
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(2, TimeUnit.MINUTES), "exec in " + vm + " ended");
    List<String> names = new ArrayList<>();
    out.lines().map(String::strip).filter(l -> !l.isEmpty()).forEach(names::add);
    names.sort(null);
    return names;
  }

  /** The worker's task API port, from its advertised address. */
  private static String agentPort(ProductionStack stack, RotaClient api) {
    Map<String, Object> worker = api.api("GET", "/v1/workers/w1", null).map();
    String url = String.valueOf(worker.get("endpoint"));
    return url.substring(url.lastIndexOf(':') + 1).replaceAll("/.*$", "");
  }

  /** {@code rota-cli.jar ARGS} against the stack's first host, as its admin. */
  private static ProcessBuilder cli(ProductionStack stack, String... args) {
    return CliJar.command(
        stack.apiUrl(0), stack.adminToken, stack.dir().resolve("cli-config.json"), args);
  }
}
