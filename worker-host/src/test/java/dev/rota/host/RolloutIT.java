package dev.rota.host;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A set of six real processes, each placed where the dry run of its creation said, rolled out to a
 * new template (maxUnavailable 1, maxSurge 1, each new replica healthy for 2 s before the next
 * goes). Every 200 ms this machine's processes are counted: never more than seven of the set's at
 * once (one surge), never fewer than five (one unavailable), and at the end six, all of the new
 * template, one each, though the only host was killed (SIGKILL) and started again in the middle.
 * Then a template whose VMs exit as they start: its rollout fails and the set reverts by itself,
 * never down more than one replica.
 */
class RolloutIT {
  private static final String OLD = "970101";
  private static final String NEW = "970102";
  private static final int REPLICAS = 6;

  private static String set(String sleep) {
    return "{\"name\":\"ro\",\"replicas\":"
        + REPLICAS
        + ",\"maxUnavailable\":1,\"update\":{\"maxSurge\":1,\"minHealthyTime\":\"2s\"},"
        + "\"template\":{\"command\":[\"sleep\",\""
        + sleep
        + "\"]}}";
  }

  @Test
  void aNewTemplateReplacesTheReplicasWithinTheSetsBounds() throws Exception {
    try (ProductionStack stack =
        ProductionStack.start(
            ProductionStack.folder("rollout"),
            1,
            2,
            Map.of("ROTA_SCHEDULER_INTERVAL", "1s", "ROTA_API_INSECURE_HTTP", "true"))) {
      RotaClient api = stack.admin(0);
      // Its dry run says where each replica would go; the real creation puts them there.
      RotaClient.Reply plan = api.api("POST", "/v1/vm-sets?dryRun=true", set(OLD));
      assertEquals(200, plan.status(), plan.body());
      Map<String, Object> planned = new java.util.HashMap<>();
      for (Object p : (List<?>) plan.map().get("placements")) {
        Map<?, ?> placement = (Map<?, ?>) p;
        planned.put((String) placement.get("vm"), placement.get("worker"));
      }
      assertEquals(REPLICAS, planned.size(), plan.body());
      assertTrue(planned.values().stream().allMatch(java.util.Objects::nonNull), plan.body());
      assertEquals(404, api.api("GET", "/v1/vm-sets/ro", null).status(), "nothing made");
      assertEquals(201, api.api("POST", "/v1/vm-sets", set(OLD)).status());
      // Ready as the set sees them: a replica not yet available is replaced at once.
      eventually(
          "six processes of the first template, ready",
          Duration.ofSeconds(60),
          () ->
              Vms.sleeping().getOrDefault(OLD, List.of()).size() == REPLICAS
                  && api.api("GET", "/v1/vm-sets/ro", null).body().contains("\"ready\":6"));

      Map<String, Object> placed = new java.util.HashMap<>();
      api.items("/v1/vms?set=ro")
          .forEach(vm -> placed.put((String) vm.get("name"), vm.get("worker")));
      assertEquals(planned, placed, "each replica where its dry run said");

      AtomicInteger most = new AtomicInteger();
      AtomicInteger fewest = new AtomicInteger(Integer.MAX_VALUE);
      AtomicInteger looks = new AtomicInteger();
      try (ProcessSampler sampler =
          new ProcessSampler(
              sample -> {
                int live =
                    sample.getOrDefault(OLD, List.of()).size()
                        + sample.getOrDefault(NEW, List.of()).size();
                most.accumulateAndGet(live, Math::max);
                fewest.accumulateAndGet(live, Math::min);
                looks.incrementAndGet();
              })) {
        RotaClient.Reply put = api.api("PUT", "/v1/vm-sets/ro", set(NEW));
        assertEquals(200, put.status(), put.body());
        assertTrue(put.body().contains("\"version\":2"), put.body());
        // Mid-rollout the only host is killed (SIGKILL) and started again: the set's workflow
        // goes on from the rows, the sampler looking all along.
        eventually(
            "two processes of the new template",
            Duration.ofSeconds(60),
            () -> Vms.sleeping().getOrDefault(NEW, List.of()).size() >= 2);
        stack.host(0).kill();
        stack.restartHost(0);
        eventually(
            "six processes of the new template, none of the old",
            Duration.ofSeconds(120),
            () ->
                Vms.sleeping().getOrDefault(NEW, List.of()).size() == REPLICAS
                    && Vms.sleeping().getOrDefault(OLD, List.of()).isEmpty());
      }
      System.out.printf(
          "rollout of %d replicas: %d looks, between %d and %d processes at once%n",
          REPLICAS, looks.get(), fewest.get(), most.get());
      assertTrue(most.get() <= REPLICAS + 1, "never more than 6 + maxSurge: " + most.get());
      assertTrue(fewest.get() >= REPLICAS - 1, "never fewer than 6 - maxUnavailable: " + fewest);
      assertTrue(looks.get() > 0, "the sampler looked");

      List<Map<String, Object>> replicas = api.items("/v1/vms?set=ro");
      assertEquals(REPLICAS, replicas.size());
      replicas.forEach(
          vm -> assertEquals(List.of("sleep", NEW), vm.get("command"), vm.get("name") + ""));
      List<Map<String, Object>> versions = api.items("/v1/vm-sets/ro/versions");
      assertEquals(List.of(2, 1), versions.stream().map(v -> v.get("version")).toList());

      // A template whose VMs exit as they start: its first new replica fails, the rollout stops
      // there, long before its deadline, and the set goes back by itself to the template that
      // rolled out whole.
      eventually(
          "version 2 rolled out whole",
          Duration.ofSeconds(60),
          () -> api.api("GET", "/v1/vm-sets/ro", null).body().contains("\"stableVersion\":2"));
      List<Long> before = Vms.sleeping().getOrDefault(NEW, List.of());
      AtomicInteger fewestNew = new AtomicInteger(Integer.MAX_VALUE);
      AtomicInteger mostNew = new AtomicInteger();
      try (ProcessSampler sampler =
          new ProcessSampler(
              sample -> {
                int live = sample.getOrDefault(NEW, List.of()).size();
                fewestNew.accumulateAndGet(live, Math::min);
                mostNew.accumulateAndGet(live, Math::max);
              })) {
        RotaClient.Reply broken = api.api("PUT", "/v1/vm-sets/ro", BROKEN);
        assertEquals(200, broken.status(), broken.body());
        eventually(
            "reverted by itself, six processes of version 2's template again",
            Duration.ofSeconds(120),
            () ->
                api.items("/v1/vm-sets/ro/versions").size() == 4
                    && api.api("GET", "/v1/vm-sets/ro", null).body().contains("\"updated\":6")
                    && Vms.sleeping().getOrDefault(NEW, List.of()).size() == REPLICAS);
      }
      assertTrue(
          fewestNew.get() >= REPLICAS - 1,
          "never fewer than 6 - maxUnavailable while the broken template was tried: " + fewestNew);
      assertTrue(mostNew.get() <= REPLICAS, "the good replicas never doubled: " + mostNew);
      List<Long> after = Vms.sleeping().getOrDefault(NEW, List.of());
      assertEquals(
          REPLICAS - 1,
          before.stream().filter(after::contains).count(),
          "going back to their template left the five good replicas that ran alone");
      versions = api.items("/v1/vm-sets/ro/versions");
      assertEquals(List.of(4, 3, 2, 1), versions.stream().map(v -> v.get("version")).toList());
      assertEquals("rota (auto-revert)", versions.get(0).get("createdBy"));
      assertEquals(
          ((Map<?, ?>) versions.get(2).get("template")).get("command"),
          ((Map<?, ?>) versions.get(0).get("template")).get("command"),
          "version 4 is version 2's template");
      api.items("/v1/vms?set=ro")
          .forEach(
              vm -> assertEquals(List.of("sleep", NEW), vm.get("command"), vm.get("name") + ""));
    }
  }

  /** Exits as it starts, again and again: never ready. */
  private static final String BROKEN =
      "{\"name\":\"ro\",\"replicas\":"
          + REPLICAS
          + ",\"maxUnavailable\":1,\"update\":{\"maxSurge\":1,\"minHealthyTime\":\"2s\","
          + "\"progressDeadline\":\"1h\",\"autoRevert\":true},"
          + "\"template\":{\"command\":[\"sh\",\"-c\",\"exit 3\"],\"restartPolicy\":\"Always\"}}";
}
