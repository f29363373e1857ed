package dev.rota.host;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * A start that reaches its agent only after the VM went elsewhere: worker w1's agent is frozen
 * (SIGSTOP) before a VM is placed on it, so the controller's start waits in the agent's socket; w1
 * goes offline, the VM is placed on w2 and runs there; then w1's agent is thawed (SIGCONT) and
 * reads the start at last. It refuses it (the controller gave up on that start long before, by the
 * controller's clock), and the processes, sampled every 200 ms throughout, never show two copies.
 */
class LateStartIT {
  private static final String SLEEP = "951357";

  @Test
  void aStartDeliveredAfterTheVmWentElsewhereIsRefusedAndTheVmNeverRunsTwice() throws Exception {
    try (ProductionStack stack =
        ProductionStack.start(
            ProductionStack.folder("late-start"), 1, 2, ProductionStack.QUICK_TO_LOSE_WORKERS)) {
      RotaClient api = stack.admin(0);
      assertEquals(200, api.api("PATCH", "/v1/workers/w2", "{\"schedulingPaused\":true}").status());
      long w1 = stack.agent(0).pid();

      List<String> twice = new CopyOnWriteArrayList<>();
      ProcessSampler sampler =
          new ProcessSampler(
              live -> {
                List<Long> pids = live.getOrDefault(SLEEP, List.of());
                if (pids.size() > 1) {
                  twice.add(Instant.now() + ": " + pids);
                }
              });
      try {
        Signals.send("STOP", w1);
        assertEquals(
            201,
            api.api(
                    "POST",
                    "/v1/vms",
                    "{\"name\":\"late\",\"command\":[\"sleep\",\""
                        + SLEEP
                        + "\"],\"restartPolicy\":\"Always\"}")
                .status());
        eventually(
            "late placed on the frozen w1, its start on its way",
            () -> "w1".equals(api.vm("late").get("worker")));
        assertEquals(
            200, api.api("PATCH", "/v1/workers/w2", "{\"schedulingPaused\":false}").status());
        eventually(
            "late running on w2 once w1 is offline",
            Duration.ofSeconds(90),
            () -> {
              Map<String, Object> row = api.vm("late");
              return "running".equals(row.get("status")) && "w2".equals(row.get("worker"));
            });
        assertEquals(1, Vms.sleeping().getOrDefault(SLEEP, List.of()).size(), "one copy, on w2");

        Signals.send("CONT", w1);
        eventually(
            "w1 ready again",
            Duration.ofSeconds(90),
            () ->
                api.items("/v1/workers").stream()
                    .anyMatch(w -> "w1".equals(w.get("name")) && "ready".equals(w.get("health"))));
        // A few terms more: what w1 was sent while frozen has been read and answered by now.
        long termAfter = term(api) + 3;
        eventually("three more terms", Duration.ofSeconds(60), () -> term(api) >= termAfter);
      } finally {
        Signals.send("CONT", w1);
        sampler.close();
      }
      assertEquals(List.of(), twice, "never two copies of late");
      Map<String, Object> row = api.vm("late");
      assertEquals("w2", row.get("worker"), row.toString());
      assertEquals(1, Vms.sleeping().getOrDefault(SLEEP, List.of()).size(), "one copy at the end");
    }
  }

  private static long term(RotaClient api) {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("\"term\":(\\d+)")
            .matcher(api.api("GET", "/v1/cluster", null).body());
    return m.find() ? Long.parseLong(m.group(1)) : 0;
  }
}
