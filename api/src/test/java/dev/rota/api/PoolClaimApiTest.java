package dev.rota.api;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.store.VmRepository;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Claims from a pool whose replicas run (placed by hand, their agent's reports sent through the
 * API, as {@link TaskReportApiTest} does), against the real workflows on Temporal's test server.
 */
@MicronautTest(transactional = false)
class PoolClaimApiTest {
  @Inject Http http;
  @Inject VmRepository vms;
  @Inject HandPlacement hand;
  @Inject dev.rota.store.OutboxRepository outbox;
  @Inject dev.rota.control.ControlWorkflows workflows;
  @Inject dev.rota.control.WorkflowKeeper keeper;
  @Inject io.micronaut.transaction.TransactionOperations<java.sql.Connection> tx;
  @Inject io.temporal.client.WorkflowClient temporal;
  @Inject dev.rota.control.VmWorkflowStarter starter;

  private static String running(String... tasks) {
    List<String> items = new ArrayList<>();
    for (String id : tasks) {
      items.add(
          "{\"id\":\""
              + id
              + "\",\"vm\":\""
              + id.substring(0, id.indexOf('.'))
              + "\",\"state\":\"running\",\"exitCode\":null,\"startedAt\":null,"
              + "\"finishedAt\":null,\"message\":null}");
    }
    return "{\"tasks\":[" + String.join(",", items) + "]}";
  }

  /** Placed on {@code worker} by hand once its workflow runs. */
  private void placed(String vm, String worker) {
    eventually(vm + "'s workflow started", () -> !starter.owed(vm));
    hand.place(vm, worker);
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> pool(String name) {
    return (Map<String, Object>) http.get("/v1/pools/" + name).map().get("status");
  }

  private String status(String vm) {
    return (String) http.get("/v1/vms/" + vm).map().get("status");
  }

  /**
   * A host that dies in a claim after ending the replica's workflow and before the claim's
   * transaction leaves a replica with no workflow: the keeper's two looks start it again from its
   * row, and it is then claimed as any other, its task running on and never started again.
   */
  @Test
  void aReplicaWhoseClaimDiedBeforeItsCommitGetsItsWorkflowBackAndIsClaimedLater() {
    oneReady(
        "pk",
        "{\"name\":\"pk\",\"minReady\":1,\"max\":1,"
            + "\"template\":{\"command\":[\"sleep\",\"60\"]}}");

    // The claim's first step, then its host died: no rename, no new workflow.
    assertTrue(workflows.endVm("pk-0", "claimed from pool pk as VM pk-job"));
    assertEquals(
        io.temporal.api.enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_TERMINATED,
        workflowStatus("pk-0"));
    keeper.restoreMissingFrom(java.util.Set.of());
    keeper.restoreMissingFrom(java.util.Set.of());
    eventually(
        "the replica's workflow runs again",
        () ->
            workflowStatus("pk-0")
                == io.temporal.api.enums.v1.WorkflowExecutionStatus
                    .WORKFLOW_EXECUTION_STATUS_RUNNING);
    assertEquals("running", status("pk-0"), "still the running replica it was");

    Http.Reply claim = http.post("/v1/vms", "{\"name\":\"pk-job\",\"fromPool\":\"pk\"}");
    assertEquals(201, claim.status(), claim.toString());
    assertEquals("running", claim.map().get("status"));
    assertEquals(204, http.put("/v1/workers/pk-w/tasks", running("pk-0.0")).status());
    assertEquals("running", status("pk-job"), "its replica's task, reported on, is its own");
    assertTrue(
        outbox.agentCallsAfter(0, 10_000).stream()
            .noneMatch(
                a ->
                    a.kind().equals(dev.rota.store.OutboxRow.START)
                        && List.of("pk-0", "pk-job").contains(a.vm())),
        "its task is never started again");
  }

  /**
   * A replica that ends for good before anyone claims it (its template restarts {@code Never})
   * holds its place in the pool until its pause is over; then the pool deletes it and makes another
   * under a new name.
   */
  @Test
  void aReplicaThatEndedUnclaimedIsReplacedOnceItsPauseIsOver() throws Exception {
    oneReady(
        "pr",
        "{\"name\":\"pr\",\"minReady\":1,\"max\":2,\"template\":{\"command\":"
            + "[\"sleep\",\"60\"],\"restartPolicy\":\"Never\"}}");

    assertEquals(
        204,
        http.put(
                "/v1/workers/pr-w/tasks",
                running("pr-0.0")
                    .replace("\"running\",\"exitCode\":null", "\"exited\",\"exitCode\":1"))
            .status());
    eventually("failed for good", () -> "failed".equals(status("pr-0")));
    workflows.setChanged("pr");
    assertTrue(
        vms.findById("pr-1").isEmpty() && vms.findById("pr-0").isPresent(),
        "not replaced while its pause lasts");

    // Its pause over, as though its end came a minute ago.
    assertEquals(
        1,
        update(
            "UPDATE vms SET finished_at = ? WHERE name = 'pr-0'",
            java.time.OffsetDateTime.now().minusMinutes(1)));
    workflows.setChanged("pr");
    eventually(
        "deleted and made anew under a new name",
        () -> vms.findById("pr-0").isEmpty() && vms.findById("pr-1").isPresent());
    assertEquals(0, pool("pr").get("claimed"));
  }

  /**
   * Worker {@code <pool>-w}, given by hand, and the pool that {@code body} makes, its replica
   * {@code <pool>-0} placed there by hand and reported running and ready.
   */
  private void oneReady(String pool, String body) {
    String worker = pool + "-w";
    assertEquals(
        201,
        http.post(
                "/v1/workers", "{\"name\":\"" + worker + "\",\"endpoint\":\"http://127.0.0.1:1\"}")
            .status());
    assertEquals(201, http.post("/v1/pools", body).status());
    eventually("a replica", () -> vms.findById(pool + "-0").isPresent());
    placed(pool + "-0", worker);
    assertEquals(
        204, http.put("/v1/workers/" + worker + "/tasks", running(pool + "-0.0")).status());
    eventually("ready", () -> pool(pool).get("ready").equals(1));
  }

  /** Runs {@code sql} with {@code values}, as a workflow or a clock would have left the rows. */
  private int update(String sql, Object... values) {
    return tx.executeWrite(
        status -> {
          try (java.sql.PreparedStatement update = status.getConnection().prepareStatement(sql)) {
            for (int i = 0; i < values.length; i++) {
              update.setObject(i + 1, values[i]);
            }
            return update.executeUpdate();
          }
        });
  }

  private io.temporal.api.enums.v1.WorkflowExecutionStatus workflowStatus(String vm) {
    return temporal
        .newUntypedWorkflowStub(dev.rota.workflows.vm.VmWorkflow.workflowId(vm))
        .describe()
        .getStatus();
  }

  /**
   * A claim with user data owes the claimed replica's running task that data, in the claim's
   * transaction: the outbox's next pass delivers it to the task's agent.
   */
  @Test
  void aClaimWithUserDataOwesTheReplicasRunningTaskItsData() {
    oneReady(
        "pq",
        "{\"name\":\"pq\",\"minReady\":1,\"max\":1,\"template\":{\"runtime\":\"qemu\","
            + "\"image\":\"https://example.com/runner.qcow2\",\"maxRunDuration\":\"2h\"}}");
    assertEquals(
        null,
        vms.findById("pq-0").orElseThrow().spec().maxRunSeconds(),
        "a replica waits without a lease");
    java.time.Instant claiming = java.time.Instant.now();
    String asked =
        "{\"name\":\"pq-job\",\"fromPool\":\"pq\","
            + "\"guest\":{\"userData\":\"#!/bin/sh\\necho registered\\n\"}}";

    // Its dry run names the replica it would take, and takes nothing.
    Http.Reply plan = http.post("/v1/vms?dryRun=true", asked);
    assertEquals(200, plan.status(), plan.toString());
    assertEquals(
        List.of(
            java.util.Map.of(
                "vm", "pq-job", "worker", "pq-w", "why", "claims pq-0, ready in pool pq")),
        ((List<?>) plan.map().get("placements"))
            .stream()
                .map(p -> new java.util.HashMap<>((java.util.Map<?, ?>) p))
                .peek(p -> p.values().removeIf(java.util.Objects::isNull))
                .toList());
    assertTrue(vms.findById("pq-job").isEmpty(), "nothing claimed");

    Http.Reply claim = http.post("/v1/vms", asked);
    assertEquals(201, claim.status(), claim.toString());
    List<dev.rota.store.OutboxRow> owed =
        outbox.agentCallsAfter(0, 10_000).stream()
            .filter(a -> a.kind().equals(dev.rota.store.OutboxRow.DELIVER))
            .filter(a -> "pq-job".equals(a.vm()))
            .toList();
    assertEquals(1, owed.size(), owed.toString());
    assertEquals("pq-w", owed.get(0).worker());
    assertEquals("pq-0.0", owed.get(0).taskId(), "the replica's task, under its name");
    assertEquals(vms.findById("pq-job").orElseThrow().seq(), owed.get(0).vmSeq());
    assertEquals("#!/bin/sh\necho registered\n", owed.get(0).payload());
    assertEquals(null, owed.get(0).secret());
    assertTrue(
        !claim.toString().contains("registered"), "the VM's view does not show it: " + claim);
    assertEquals("2h", claim.map().get("maxRunDuration"), "the template's lease is the VM's");
    java.time.Instant expires = java.time.Instant.parse((String) claim.map().get("leaseExpiresAt"));
    assertTrue(
        !expires.isBefore(claiming.plusSeconds(7200))
            && expires.isBefore(java.time.Instant.now().plusSeconds(7201)),
        "and counts from the claim: " + expires);
  }

  /**
   * A pool that keeps its replicas suspended hands out a suspended one: the claim makes it the
   * user's VM pending its next generation, which resumes it from the memory saved on its worker,
   * owes that task its user data there, and the pool makes another. A running replica is not
   * claimed from it.
   */
  @Test
  void aClaimFromAPoolThatKeepsItsReplicasSuspendedResumesOne() {
    assertEquals(
        201,
        http.post("/v1/workers", "{\"name\":\"pz-w\",\"endpoint\":\"http://127.0.0.1:1\"}")
            .status());
    assertEquals(
        201,
        http.post(
                "/v1/pools",
                "{\"name\":\"pz\",\"minReady\":1,\"max\":2,\"standby\":\"suspended\","
                    + "\"template\":{\"runtime\":\"qemu\",\"image\":\"https://example.com/d.qcow2\","
                    + "\"disk\":{\"persistent\":true},\"maxRunDuration\":\"1h\"}}")
            .status());
    eventually("a replica", () -> vms.findById("pz-0").isPresent());
    assertEquals(
        409,
        http.post("/v1/vms", "{\"name\":\"pz-job\",\"fromPool\":\"pz\"}").status(),
        "none suspended yet");
    // As its workflow leaves it once suspended on pz-w: its memory saved there, beside its disk.
    assertEquals(
        1,
        update(
            "UPDATE vms SET status = 'suspended', worker = 'pz-w', disk_on = 'pz-w',"
                + " memory_saved = TRUE WHERE name = 'pz-0'"));
    eventually("ready", () -> pool("pz").get("ready").equals(1));

    Http.Reply claim =
        http.post(
            "/v1/vms",
            "{\"name\":\"pz-job\",\"fromPool\":\"pz\",\"guest\":{\"userData\":\"token=3\"}}");
    assertEquals(201, claim.status(), claim.toString());
    assertEquals("pending", claim.map().get("status"), "resumed by its next task");
    assertEquals(1, claim.map().get("restartCount"));
    dev.rota.store.VmRow job = vms.findById("pz-job").orElseThrow();
    assertTrue(job.notes().memorySaved(), "it resumes from its memory");
    assertEquals("pz-w", job.notes().diskOn());
    assertEquals("pz-0-" + job.seq(), job.diskId(), "the disk and memory its replica made");
    assertTrue(!job.membership().standby(), "the user's now, suspended only if they ask");
    assertEquals(3600, job.spec().maxRunSeconds(), "the template's lease is the VM's");
    assertEquals(null, job.state().leaseExpiresAt(), "begun once it runs again");
    String events = http.get("/v1/vms/pz-job/events").toString();
    assertTrue(events.contains("claimed from pool pz as replica pz-0"), events);
    assertTrue(
        events.contains("resuming as claimed, from its memory saved on worker pz-w"), events);
    List<dev.rota.store.OutboxRow> owed =
        outbox.agentCallsAfter(0, 10_000).stream()
            .filter(a -> a.kind().equals(dev.rota.store.OutboxRow.DELIVER))
            .filter(a -> "pz-job".equals(a.vm()))
            .toList();
    assertEquals(1, owed.size(), owed.toString());
    assertEquals("pz-w", owed.get(0).worker());
    assertEquals("pz-0.1", owed.get(0).taskId(), "the task that resumes it");
    eventually("the pool makes another", () -> vms.findById("pz-1").isPresent());
    assertTrue(vms.findById("pz-1").orElseThrow().membership().standby(), "kept suspended too");
  }

  @Test
  void claimsAtOnceTakeEachReadyReplicaOnceAndTheRestAreRefused() throws Exception {
    assertEquals(
        201,
        http.post("/v1/workers", "{\"name\":\"pc-w\",\"endpoint\":\"http://127.0.0.1:1\"}")
            .status());
    assertEquals(
        201,
        http.post(
                "/v1/pools",
                "{\"name\":\"pc\",\"minReady\":2,\"max\":4,"
                    + "\"template\":{\"command\":[\"sleep\",\"60\"]}}")
            .status());
    eventually(
        "two replicas", () -> vms.findById("pc-0").isPresent() && vms.findById("pc-1").isPresent());
    placed("pc-0", "pc-w");
    placed("pc-1", "pc-w");
    assertEquals(204, http.put("/v1/workers/pc-w/tasks", running("pc-0.0", "pc-1.0")).status());
    eventually("both ready", () -> pool("pc").get("ready").equals(2));

    int claims = 3;
    CyclicBarrier together = new CyclicBarrier(claims);
    ExecutorService threads = Executors.newFixedThreadPool(claims);
    List<Future<Http.Reply>> replies = new ArrayList<>();
    for (int i = 0; i < claims; i++) {
      String name = "pc-job-" + i;
      replies.add(
          threads.submit(
              () -> {
                together.await();
                return http.post("/v1/vms", "{\"name\":\"" + name + "\",\"fromPool\":\"pc\"}");
              }));
    }
    List<String> claimed = new ArrayList<>();
    List<String> replicas = new ArrayList<>();
    int refused = 0;
    for (int i = 0; i < claims; i++) {
      Http.Reply reply = replies.get(i).get();
      if (reply.status() == 201) {
        String name = (String) reply.map().get("name");
        claimed.add(name);
        assertEquals("running", reply.map().get("status"), reply.toString());
        String events = http.get("/v1/vms/" + name + "/events").toString();
        replicas.add(events.replaceAll("(?s).*as replica (pc-[0-9]+).*", "$1"));
      } else {
        assertEquals(409, reply.status(), reply.toString());
        refused++;
      }
    }
    threads.shutdown();
    assertEquals(2, claimed.size(), "each ready replica claimed once");
    assertEquals(1, refused);
    assertEquals(List.of("pc-0", "pc-1"), replicas.stream().sorted().toList());
    assertEquals(404, http.get("/v1/vms/pc-0").status(), "renamed");
    assertEquals(404, http.get("/v1/vms/pc-1").status(), "renamed");

    // The agent goes on reporting the tasks under the replicas' names: they are the claimed VMs'.
    assertEquals(204, http.put("/v1/workers/pc-w/tasks", running("pc-0.0", "pc-1.0")).status());
    for (String name : claimed) {
      assertEquals("running", status(name));
      assertTrue(
          http.get("/v1/vms/" + name + "/events").items().stream()
              .noneMatch(e -> List.of("failed", "vanished").contains(e.get("type"))),
          name + ": " + http.get("/v1/vms/" + name + "/events"));
    }
    eventually(
        "two claimed; the pool makes two more under new names, none reused",
        () ->
            pool("pc").get("claimed").equals(2)
                && vms.findById("pc-2").isPresent()
                && vms.findById("pc-3").isPresent());
  }
}
