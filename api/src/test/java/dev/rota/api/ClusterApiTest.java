package dev.rota.api;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.workflows.cluster.ClusterWorkflow;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.temporal.client.WorkflowClient;
import jakarta.inject.Inject;
import java.util.Map;
import org.junit.jupiter.api.Test;

@MicronautTest
class ClusterApiTest {
  @Inject Http http;
  @Inject WorkflowClient temporal;

  @Test
  void settingsDefaultToOptimizeUtilizationAndAcceptOnlyKnownProfiles() {
    Map<String, Object> defaults = new java.util.HashMap<>();
    defaults.put("schedulerProfile", "optimize-utilization");
    defaults.put("defaultMaxRunDuration", null);
    defaults.put("instanceSizes", Map.of());
    defaults.put("preemption", false);
    assertEquals(defaults, http.get("/v1/cluster-settings").map());
    Http.Reply put = http.put("/v1/cluster-settings", "{\"schedulerProfile\":\"distribute-load\"}");
    assertEquals(200, put.status(), put.toString());
    assertEquals("distribute-load", http.get("/v1/cluster-settings").map().get("schedulerProfile"));

    Http.Reply bad = http.put("/v1/cluster-settings", "{\"schedulerProfile\":\"random\"}");
    assertEquals(400, bad.status());
    assertTrue(bad.isProblem());
    assertTrue(bad.detail().contains("schedulerProfile"), bad.detail());
    assertEquals("distribute-load", http.get("/v1/cluster-settings").map().get("schedulerProfile"));
    http.put("/v1/cluster-settings", "{\"schedulerProfile\":\"optimize-utilization\"}");
  }

  @Test
  void preemptionIsOffUntilAskedForAndOffAgainWhenLeftOut() {
    try {
      Http.Reply on =
          http.put(
              "/v1/cluster-settings",
              "{\"schedulerProfile\":\"optimize-utilization\",\"preemption\":true}");
      assertEquals(200, on.status(), on.toString());
      assertEquals(true, on.map().get("preemption"));
      assertEquals(true, http.get("/v1/cluster-settings").map().get("preemption"));

      Http.Reply bad =
          http.put(
              "/v1/cluster-settings",
              "{\"schedulerProfile\":\"optimize-utilization\",\"preemption\":\"yes\"}");
      assertEquals(400, bad.status());
      assertTrue(bad.detail().startsWith("preemption"), bad.detail());
      assertEquals(true, http.get("/v1/cluster-settings").map().get("preemption"), "unchanged");

      http.put("/v1/cluster-settings", "{\"schedulerProfile\":\"optimize-utilization\"}");
      assertEquals(false, http.get("/v1/cluster-settings").map().get("preemption"));
    } finally {
      http.put("/v1/cluster-settings", "{\"schedulerProfile\":\"optimize-utilization\"}");
    }
  }

  @Test
  void aDefaultLeaseIsGivenToWhatIsSubmittedWithoutOne() {
    try {
      Http.Reply put =
          http.put(
              "/v1/cluster-settings",
              "{\"schedulerProfile\":\"optimize-utilization\",\"defaultMaxRunDuration\":\"120m\"}");
      assertEquals(200, put.status(), put.toString());
      assertEquals("2h", put.map().get("defaultMaxRunDuration"));
      assertEquals("2h", http.get("/v1/cluster-settings").map().get("defaultMaxRunDuration"));

      Map<String, Object> given =
          http.post("/v1/vms", "{\"name\":\"lease-default\",\"command\":[\"true\"]}").map();
      assertEquals("2h", given.get("maxRunDuration"));
      assertEquals("stop", given.get("onExpiry"));
      Map<String, Object> own =
          http.post(
                  "/v1/vms",
                  "{\"name\":\"lease-own\",\"command\":[\"true\"],\"maxRunDuration\":\"10m\",\"onExpiry\":\"delete\"}")
              .map();
      assertEquals("10m", own.get("maxRunDuration"), "a VM's own lease is kept");
      assertEquals("delete", own.get("onExpiry"));
      Map<String, Object> ownEnd =
          http.post(
                  "/v1/vms",
                  "{\"name\":\"lease-end\",\"command\":[\"true\"],\"onExpiry\":\"delete\"}")
              .map();
      assertEquals("2h", ownEnd.get("maxRunDuration"), "the default's length");
      assertEquals("delete", ownEnd.get("onExpiry"), "and its own end");
      Http.Reply set =
          http.post(
              "/v1/vm-sets",
              "{\"name\":\"lease-set\",\"replicas\":0,\"template\":{\"command\":[\"true\"]}}");
      assertEquals(201, set.status(), set.toString());
      assertEquals("2h", ((Map<?, ?>) set.map().get("template")).get("maxRunDuration"));

      Http.Reply bad =
          http.put(
              "/v1/cluster-settings",
              "{\"schedulerProfile\":\"distribute-load\",\"defaultMaxRunDuration\":\"2 hours\"}");
      assertEquals(400, bad.status());
      assertTrue(bad.detail().contains("defaultMaxRunDuration"), bad.detail());
      assertEquals(
          Map.of(
              "schedulerProfile",
              "optimize-utilization",
              "defaultMaxRunDuration",
              "2h",
              "instanceSizes",
              Map.of(),
              "preemption",
              false),
          http.get("/v1/cluster-settings").map(),
          "a refused change changes nothing");
    } finally {
      http.put("/v1/cluster-settings", "{\"schedulerProfile\":\"optimize-utilization\"}");
    }
    assertEquals(null, http.get("/v1/cluster-settings").map().get("defaultMaxRunDuration"));
    assertEquals(
        null,
        http.post("/v1/vms", "{\"name\":\"lease-none\",\"command\":[\"true\"]}")
            .map()
            .get("maxRunDuration"),
        "a PUT without it sets none");
  }

  @Test
  void clusterCountsWorkersByHealthAndVmsByStatus() throws Exception {
    ClusterWorkflow scheduler =
        temporal.newWorkflowStub(ClusterWorkflow.class, ClusterWorkflow.WORKFLOW_ID);
    eventually("the first term", () -> scheduler.lastTerm() != null);
    http.post("/v1/workers", "{\"name\":\"count-1\",\"endpoint\":\"http://127.0.0.1:9101\"}");
    http.post("/v1/vms", "{\"name\":\"count-vm\",\"command\":[\"true\"]}");
    Map<String, Object> cluster = http.get("/v1/cluster").map();
    assertEquals("rota-cluster", cluster.get("schedulerWorkflowId"));
    // The answering host's build, as the jar's build wrote it.
    assertEquals(dev.rota.agentapi.RotaBuild.current().version(), cluster.get("version"));
    assertTrue(String.valueOf(cluster.get("commit")).matches("[0-9a-f]{7,}"), cluster.toString());
    assertEquals(
        "workflow", cluster.get("lastTermSource"), "the scheduler answered its query in time");
    assertTrue(((Number) cluster.get("term")).longValue() >= 1, cluster.toString());
    assertTrue(
        ((Map<?, ?>) cluster.get("workers")).get("not-ready") instanceof Number,
        cluster.toString());
    assertTrue(
        ((Map<?, ?>) cluster.get("vms")).get("pending") instanceof Number, cluster.toString());
    // Times are RFC 3339, never epoch numbers: the term's end follows its start.
    java.time.Instant began = java.time.Instant.parse((String) cluster.get("lastTermAt"));
    java.time.Instant ended = java.time.Instant.parse((String) cluster.get("lastTermEndedAt"));
    assertTrue(!ended.isBefore(began), cluster.toString());
    Map<?, ?> decisions = (Map<?, ?>) cluster.get("lastTermDecisions");
    assertTrue(decisions.containsKey("nextDeadline"), decisions.toString());
    assertTrue(
        decisions.keySet().stream().noneMatch(k -> k.toString().endsWith("Millis")),
        decisions.toString());
  }

  @Test
  void aPausedClusterSaysSoAndARejectingOneRefusesSubmissionsWithTheReasonAndChangesNothing() {
    try {
      Http.Reply noReason = http.patch("/v1/cluster", "{\"schedulingPaused\":true}");
      assertEquals(400, noReason.status(), noReason.toString());
      assertTrue(noReason.detail().startsWith("reason: is required"), noReason.detail());
      Http.Reply unknown = http.patch("/v1/cluster", "{\"paused\":true,\"reason\":\"x\"}");
      assertEquals(400, unknown.status(), unknown.toString());
      assertTrue(unknown.detail().contains("paused"), unknown.detail());
      assertEquals(false, http.get("/v1/cluster").map().get("schedulingPaused"), "nothing changed");

      Http.Reply paused =
          http.patch(
              "/v1/cluster", "{\"schedulingPaused\":true,\"reason\":\"upgrading the fleet\"}");
      assertEquals(200, paused.status(), paused.toString());
      Map<String, Object> cluster = http.get("/v1/cluster").map();
      assertEquals(true, cluster.get("schedulingPaused"));
      assertEquals(false, cluster.get("rejectSubmissions"));
      assertEquals("upgrading the fleet", cluster.get("pauseReason"));
      assertTrue(cluster.get("pausedAt") instanceof String, cluster.toString());
      assertEquals(
          201,
          http.post("/v1/vms", "{\"name\":\"paused-vm\",\"command\":[\"true\"]}").status(),
          "a scheduling pause still takes submissions");

      assertEquals(
          400,
          http.patch("/v1/cluster", "{\"rejectSubmissions\":true}").status(),
          "each pause says why");
      assertEquals(
          200,
          http.patch(
                  "/v1/cluster", "{\"rejectSubmissions\":true,\"reason\":\"upgrading the fleet\"}")
              .status());
      Http.Reply refused = http.post("/v1/vms", "{\"name\":\"refused-vm\",\"command\":[\"true\"]}");
      assertEquals(503, refused.status(), refused.toString());
      assertTrue(refused.isProblem());
      assertTrue(refused.detail().contains("upgrading the fleet"), refused.detail());
      assertTrue(refused.header("Retry-After") != null, refused.toString());
      assertEquals(404, http.get("/v1/vms/refused-vm").status(), "nothing was stored");
      Http.Reply set =
          http.post(
              "/v1/vm-sets",
              "{\"name\":\"refused-set\",\"replicas\":1,\"template\":{\"command\":[\"true\"]}}");
      assertEquals(503, set.status(), set.toString());
    } finally {
      http.patch("/v1/cluster", "{\"schedulingPaused\":false,\"rejectSubmissions\":false}");
    }
    Map<String, Object> resumed = http.get("/v1/cluster").map();
    assertEquals(false, resumed.get("schedulingPaused"));
    assertEquals(null, resumed.get("pauseReason"));
    assertEquals(
        201, http.post("/v1/vms", "{\"name\":\"after-pause\",\"command\":[\"true\"]}").status());
  }

  @Test
  void unknownRoutesAreProblemsToo() {
    Http.Reply reply = http.get("/v1/nothing-here");
    assertEquals(404, reply.status());
    assertTrue(reply.isProblem(), reply.toString());
  }
}
