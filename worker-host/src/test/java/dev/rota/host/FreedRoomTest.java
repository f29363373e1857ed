package dev.rota.host;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Room freed is used at once: a VM waiting for room is placed as soon as a VM that held it stops,
 * ends by itself or is deleted, not at the scheduler's next interval. The interval here is ten
 * minutes, so a VM placed within the test's patience was placed because the room was freed.
 */
class FreedRoomTest {
  @TempDir static Path dir;
  private static Stack stack;

  @BeforeAll
  static void start() {
    stack =
        Stack.withAgentsReady(
            dir.resolve("data"),
            Map.of(
                "rota.scheduler.interval", "10m",
                "rota.scheduler.idle-interval", "10m",
                // Each VM's workflow at once: news for a workflow not yet started would have the
                // scheduler back every second to tell it.
                "rota.vms.workflow-start-delay", "0s",
                "rota.workers.lost-after", "5m",
                "rota.workers.offline-after", "5m",
                "rota.dev.agent-resources", "cpu=4,memory=8192"));
  }

  @AfterAll
  static void close() {
    if (stack != null) {
      stack.close();
    }
  }

  /** A VM taking a whole worker's CPUs. */
  private static String whole(String name, String... command) {
    StringBuilder argv = new StringBuilder();
    for (String a : command) {
      argv.append(argv.length() == 0 ? "" : ",").append('"').append(a).append('"');
    }
    return "{\"name\":\""
        + name
        + "\",\"command\":["
        + argv
        + "],\"resources\":{\"cpu\":4,\"memory\":64}}";
  }

  private static void submit(String vm) {
    RotaClient.Reply r = stack.api("POST", "/v1/vms", vm);
    assertEquals(201, r.status(), r.body());
  }

  private static void running(String name) {
    eventually(name + " running", () -> "running".equals(stack.vm(name).get("status")));
  }

  /**
   * {@code name} waits for room, and the scheduler rests: its last term left no action to carry out
   * (it would be back within a second to retry it) and started nothing (it would be back to see it
   * run), so its next term is an interval away unless it is woken.
   */
  @SuppressWarnings("unchecked")
  private static void waiting(String name) {
    eventually(
        name + " waiting for room, the scheduler at rest",
        () -> {
          Map<String, Object> vm = stack.vm(name);
          Map<String, Object> applied =
              (Map<String, Object>)
                  stack.api("GET", "/v1/cluster", null).map().get("lastTermApplied");
          return "pending".equals(vm.get("status"))
              && String.valueOf(vm.get("statusMessage")).contains("cpu")
              && applied != null
              && ((Number) applied.get("remaining")).intValue() == 0
              && ((Number) applied.get("started")).intValue() == 0;
        });
  }

  @Test
  void aWaitingVmTakesTheRoomOfOneStoppedOneEndedAndOneDeleted() throws Exception {
    Path done = dir.resolve("done");
    submit(whole("holder", "sleep", "3607"));
    submit(whole("ender", "sh", "-c", "while [ ! -e " + done + " ]; do sleep 0.1; done"));
    running("holder");
    running("ender");

    submit(whole("after-stop", "sleep", "3608"));
    waiting("after-stop");
    assertEquals(202, stack.api("POST", "/v1/vms/holder/stop", null).status());
    running("after-stop");

    submit(whole("after-exit", "sleep", "3609"));
    waiting("after-exit");
    Files.writeString(done, "");
    running("after-exit");

    submit(whole("after-delete", "sleep", "3610"));
    waiting("after-delete");
    assertEquals(202, stack.api("DELETE", "/v1/vms/after-stop", null).status());
    running("after-delete");
  }
}
