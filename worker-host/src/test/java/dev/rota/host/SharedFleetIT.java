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
 * A fleet several kinds of work share, on real processes. Preemption: one worker, full with a
 * low-priority VM that restarts (a real process holding 600 of its 1,000 CPUs). A VM of priority 90
 * that needs as much waits while the cluster does not preempt, through terms that change nothing;
 * once preemption is on, the low one is evicted and the high one runs, the two never at once (this
 * machine's processes looked at every 200 ms). When the high one is deleted, the low one starts
 * again by itself. Worker pools and taints: a VM goes only to the workers of its pool, and past a
 * worker's taint only if it tolerates it. Namespaces: a submission past its namespace's quota is
 * refused, and a stopped VM whose quota was lowered meanwhile does not start again until there is
 * room.
 */
class SharedFleetIT {
  private static final String LOW = "970301";
  private static final String HIGH = "970302";

  private static String vm(String name, String sleep, String policy, int priority) {
    return "{\"name\":\""
        + name
        + "\",\"command\":[\"sleep\",\""
        + sleep
        + "\"],\"resources\":{\"cpu\":600,\"memory\":512},\"restartPolicy\":\""
        + policy
        + "\",\"priority\":"
        + priority
        + "}";
  }

  @Test
  void aVmOfHigherPriorityEvictsALowerOneOnlyWherePreemptionIsOn() throws Exception {
    try (ProductionStack stack =
        ProductionStack.start(
            ProductionStack.folder("preemption"),
            1,
            1,
            Map.of("ROTA_SCHEDULER_INTERVAL", "1s", "ROTA_API_INSECURE_HTTP", "true"))) {
      RotaClient api = stack.admin(0);
      assertEquals(201, api.api("POST", "/v1/vms", vm("nightly", LOW, "Always", 10)).status());
      eventually(
          "the low one runs",
          Duration.ofSeconds(60),
          () -> Vms.sleeping().getOrDefault(LOW, List.of()).size() == 1);
      long lowPid = Vms.sleeping().get(LOW).get(0);

      AtomicInteger most = new AtomicInteger();
      AtomicInteger looks = new AtomicInteger();
      try (ProcessSampler sampler =
          new ProcessSampler(
              sample -> {
                int live =
                    sample.getOrDefault(LOW, List.of()).size()
                        + sample.getOrDefault(HIGH, List.of()).size();
                most.accumulateAndGet(live, Math::max);
                looks.incrementAndGet();
              })) {
        assertEquals(201, api.api("POST", "/v1/vms", vm("release", HIGH, "Never", 90)).status());
        // Preemption is off by default: terms go by, the high one waits and the low one runs.
        long term = term(api);
        eventually(
            "three more terms",
            Duration.ofSeconds(60),
            () -> term(api) >= term + 3 && pendingReason(api, "release") != null);
        assertTrue(
            pendingReason(api, "release").startsWith("needs cpu 600"),
            pendingReason(api, "release"));
        assertEquals(List.of(lowPid), Vms.sleeping().get(LOW), "the low one untouched");

        RotaClient.Reply on =
            api.api(
                "PUT",
                "/v1/cluster-settings",
                "{\"schedulerProfile\":\"optimize-utilization\",\"preemption\":true}");
        assertEquals(200, on.status(), on.body());
        eventually(
            "the high one runs, the low one does not",
            Duration.ofSeconds(60),
            () ->
                Vms.sleeping().getOrDefault(HIGH, List.of()).size() == 1
                    && Vms.sleeping().getOrDefault(LOW, List.of()).isEmpty());
        eventually(
            "the low one waits for room, at its next generation",
            Duration.ofSeconds(30),
            () -> {
              Map<String, Object> low = api.api("GET", "/v1/vms/nightly", null).map();
              return "pending".equals(low.get("status"))
                  && Integer.valueOf(1).equals(low.get("restartCount"));
            });
        assertTrue(events(api, "nightly").contains("preempted on worker"), events(api, "nightly"));
        assertTrue(
            events(api, "release").contains("evicting nightly (priority 10) from worker"),
            events(api, "release"));

        assertEquals(202, api.api("DELETE", "/v1/vms/release", null).status());
        eventually(
            "the low one runs again once the room is back",
            Duration.ofSeconds(60),
            () ->
                Vms.sleeping().getOrDefault(LOW, List.of()).size() == 1
                    && Vms.sleeping().getOrDefault(HIGH, List.of()).isEmpty());
      }
      System.out.printf(
          "preemption: %d looks, at most %d of the two at once%n", looks.get(), most.get());
      assertEquals(1, most.get(), "never both at once on the one worker");
      assertTrue(looks.get() > 0, "the sampler looked");
      assertEquals(
          "running",
          eventuallyStatus(api, "nightly", "running"),
          "its workflow saw it start again");
    }
  }

  /**
   * Three workers: w1 in the pool {@code gpu} (its agent's ROTA_WORKER_POOL), w2 and w3 in the
   * default pool, w3 tainted {@code dedicated=ci:NoSchedule} (ROTA_WORKER_TAINTS). A VM that names
   * no pool goes to w2, one that names gpu to w1, and one of a pool no worker is in waits, saying
   * so. A second default VM that does not fit beside the first on w2 waits rather than go to w3; a
   * VM that tolerates the taint goes there.
   */
  @Test
  void aVmGoesOnlyToTheWorkersOfItsPoolPastTaintsItToleratesAndWithinItsQuota() throws Exception {
    try (ProductionStack stack =
        ProductionStack.start(
            ProductionStack.folder("pools"),
            1,
            List.of(
                new ProductionStack.AgentPlace(
                    null, "127.0.0.1", Map.of("ROTA_WORKER_POOL", "gpu")),
                ProductionStack.AgentPlace.LOOPBACK,
                new ProductionStack.AgentPlace(
                    null, "127.0.0.1", Map.of("ROTA_WORKER_TAINTS", "dedicated=ci:NoSchedule"))),
            Map.of("ROTA_SCHEDULER_INTERVAL", "1s", "ROTA_API_INSECURE_HTTP", "true"),
            RealServices.newPostgresDatabase(),
            false,
            "127.0.0.1",
            RealServices::temporal)) {
      RotaClient api = stack.admin(0);
      assertEquals(
          "gpu",
          ((Map<?, ?>) api.api("GET", "/v1/workers/w1", null).map().get("labels"))
              .get("rota.dev/worker-pool"));
      assertEquals(
          "ci:NoSchedule",
          ((Map<?, ?>) api.api("GET", "/v1/workers/w3", null).map().get("labels"))
              .get("taint.rota.dev/dedicated"));
      assertEquals(201, api.api("POST", "/v1/vms", vm("plain", "970311", "Never", 50)).status());
      assertEquals(
          201,
          api.api(
                  "POST",
                  "/v1/vms",
                  "{\"name\":\"trainer\",\"command\":[\"sleep\",\"970312\"],\"workerPool\":\"gpu\"}")
              .status());
      assertEquals(
          201,
          api.api(
                  "POST",
                  "/v1/vms",
                  "{\"name\":\"nowhere\",\"command\":[\"sleep\",\"970313\"],\"workerPool\":\"tpu\"}")
              .status());
      eventually(
          "both placed VMs run",
          Duration.ofSeconds(60),
          () ->
              "running".equals(api.api("GET", "/v1/vms/plain", null).map().get("status"))
                  && "running".equals(api.api("GET", "/v1/vms/trainer", null).map().get("status")));
      assertEquals("w2", api.api("GET", "/v1/vms/plain", null).map().get("worker"));
      assertEquals("w1", api.api("GET", "/v1/vms/trainer", null).map().get("worker"));
      assertEquals("gpu", api.api("GET", "/v1/vms/trainer", null).map().get("workerPool"));

      assertEquals(201, api.api("POST", "/v1/vms", vm("second", "970314", "Never", 50)).status());
      long term = term(api);
      eventually(
          "two terms leave the second default VM waiting for room on w2",
          Duration.ofSeconds(60),
          () -> term(api) >= term + 2 && pendingReason(api, "second") != null);
      assertTrue(
          pendingReason(api, "second").startsWith("needs cpu 600"), pendingReason(api, "second"));
      assertEquals(List.of(), Vms.sleeping().getOrDefault("970314", List.of()), "not on w3");
      String ciRunner =
          "{\"name\":\"ci-runner\",\"command\":[\"sleep\",\"970315\"],"
              + "\"resources\":{\"cpu\":600,\"memory\":512},"
              + "\"tolerations\":[{\"key\":\"dedicated\",\"value\":\"ci\",\"effect\":\"NoSchedule\"}]}";
      assertEquals(201, api.api("POST", "/v1/vms", ciRunner).status());
      eventually(
          "the VM that tolerates the taint runs on w3",
          Duration.ofSeconds(60),
          () -> "running".equals(api.api("GET", "/v1/vms/ci-runner", null).map().get("status")));
      assertEquals("w3", api.api("GET", "/v1/vms/ci-runner", null).map().get("worker"));
      assertEquals("pending", api.api("GET", "/v1/vms/second", null).map().get("status"));
      eventually(
          "the VM of a pool no worker is in says so",
          Duration.ofSeconds(30),
          () ->
              ("fits no worker of the cluster: none meets rota.dev/worker-pool = tpu (3 of 3 failing it)")
                  .equals(pendingReason(api, "nowhere")));

      // Two namespaces with quotas: a submission past one is refused and stores nothing; a quota
      // lowered below what a stopped VM asks keeps it from starting again until raised.
      assertEquals(
          200, api.api("PUT", "/v1/namespaces/team-a", "{\"quota\":{\"vms\":1}}").status());
      assertEquals(
          200, api.api("PUT", "/v1/namespaces/team-b", "{\"quota\":{\"cpu\":2}}").status());
      assertEquals(201, api.api("POST", "/v1/vms", small("a1", "team-a", "970321")).status());
      RotaClient.Reply refused = api.api("POST", "/v1/vms", small("a2", "team-a", "970322"));
      assertEquals(403, refused.status(), refused.body());
      assertTrue(
          refused.body().contains("namespace team-a: vms quota of 1: 1 in use, 1 more asked"),
          refused.body());
      assertEquals(404, api.api("GET", "/v1/vms/a2", null).status(), "nothing was stored");
      assertEquals(201, api.api("POST", "/v1/vms", small("b1", "team-b", "970323")).status());
      eventuallyStatus(api, "a1", "running");
      eventuallyStatus(api, "b1", "running");
      assertEquals(
          Map.of("cpu", 1, "memory", 64, "vms", 1, "disk", 0),
          api.api("GET", "/v1/namespaces/team-b", null).map().get("used"));
      assertEquals(202, api.api("POST", "/v1/vms/b1/stop", null).status());
      eventuallyStatus(api, "b1", "stopped");
      assertEquals(
          200, api.api("PUT", "/v1/namespaces/team-b", "{\"quota\":{\"cpu\":0}}").status());
      assertEquals(202, api.api("POST", "/v1/vms/b1/start", null).status());
      eventually(
          "the stopped VM waits for room in its quota",
          Duration.ofSeconds(30),
          () ->
              ("waits for room in namespace team-b's quota: cpu quota of 0: 0 running, 1 more"
                      + " asked")
                  .equals(pendingReason(api, "b1")));
      assertEquals(List.of(), Vms.sleeping().getOrDefault("970323", List.of()), "not started");
      assertEquals(
          200, api.api("PUT", "/v1/namespaces/team-b", "{\"quota\":{\"cpu\":2}}").status());
      eventuallyStatus(api, "b1", "running");
      assertEquals(1, Vms.sleeping().getOrDefault("970323", List.of()).size());
    }
  }

  /** A VM of one core and 64 MiB in {@code namespace}. */
  private static String small(String name, String namespace, String sleep) {
    return "{\"name\":\""
        + name
        + "\",\"namespace\":\""
        + namespace
        + "\",\"command\":[\"sleep\",\""
        + sleep
        + "\"],\"resources\":{\"cpu\":1,\"memory\":64}}";
  }

  private static long term(RotaClient api) {
    Object term = api.api("GET", "/v1/cluster", null).map().get("term");
    return term == null ? 0 : ((Number) term).longValue();
  }

  private static String pendingReason(RotaClient api, String vm) {
    Map<String, Object> view = api.api("GET", "/v1/vms/" + vm, null).map();
    return "pending".equals(view.get("status")) ? (String) view.get("statusMessage") : null;
  }

  private static String events(RotaClient api, String vm) {
    return api.api("GET", "/v1/vms/" + vm + "/events", null).body();
  }

  private static String eventuallyStatus(RotaClient api, String vm, String status) {
    eventually(
        vm + " " + status,
        Duration.ofSeconds(30),
        () -> status.equals(api.api("GET", "/v1/vms/" + vm, null).map().get("status")));
    return status;
  }
}
