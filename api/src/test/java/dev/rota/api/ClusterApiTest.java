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
    assertEquals(
        Map.of("schedulerProfile", "optimize-utilization"), http.get("/v1/cluster-settings").map());
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
  void clusterCountsWorkersByHealthAndVmsByStatus() throws Exception {
    ClusterWorkflow scheduler =
        temporal.newWorkflowStub(ClusterWorkflow.class, ClusterWorkflow.WORKFLOW_ID);
    eventually("the first term", () -> scheduler.lastTerm() != null);
    http.post("/v1/workers", "{\"name\":\"count-1\",\"endpoint\":\"http://127.0.0.1:9101\"}");
    http.post("/v1/vms", "{\"name\":\"count-vm\",\"command\":[\"true\"]}");
    Map<String, Object> cluster = http.get("/v1/cluster").map();
    assertEquals("rota-cluster", cluster.get("schedulerWorkflowId"));
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
  void unknownRoutesAreProblemsToo() {
    Http.Reply reply = http.get("/v1/nothing-here");
    assertEquals(404, reply.status());
    assertTrue(reply.isProblem(), reply.toString());
  }
}
