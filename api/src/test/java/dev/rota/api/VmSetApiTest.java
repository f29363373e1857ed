package dev.rota.api;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.workflows.vm.VmWorkflow;
import dev.rota.workflows.vmset.VmSetWorkflow;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code /v1/vm-sets} against the real set and VM workflows on Temporal's test server. */
@MicronautTest
class VmSetApiTest {
  @Inject Http http;
  @Inject WorkflowClient temporal;

  static String set(String name, int replicas, String spread) {
    return "{\"name\":\""
        + name
        + "\",\"replicas\":"
        + replicas
        + ",\"template\":{\"command\":[\"sleep\",\"3600\"],"
        + "\"resources\":{\"cpu\":2}},\"spread\":"
        + spread
        + "}";
  }

  private List<String> replicas(String set) {
    return http.get("/v1/vms?set=" + set).items().stream()
        .map(vm -> (String) vm.get("name"))
        .sorted()
        .toList();
  }

  /** The workflow's status, or null before it has started (a replica's start comes after it). */
  private WorkflowExecutionStatus workflowStatus(String id) {
    try {
      return temporal.newUntypedWorkflowStub(id).describe().getStatus();
    } catch (io.temporal.client.WorkflowNotFoundException e) {
      return null;
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void aSetMakesItsReplicasAsVmsOfTheirOwnAndSaysWhyTheyWait() {
    Http.Reply created = http.post("/v1/vm-sets", set("web", 3, "\"distinct-workers\""));
    assertEquals(201, created.status(), created.toString());
    assertEquals("/v1/vm-sets/web", created.header("Location"));
    Map<String, Object> body = created.map();
    assertEquals(3, body.get("replicas"));
    assertEquals("distinct-workers", body.get("spread"));
    assertEquals(1, body.get("maxUnavailable"), "the default");
    Map<String, Object> template = (Map<String, Object>) body.get("template");
    assertEquals(Map.of("cpu", 2, "memory", 512), template.get("resources"));
    assertEquals("Always", template.get("restartPolicy"), "a replica restarts, so the set heals");

    eventually("three replicas", () -> replicas("web").equals(List.of("web-0", "web-1", "web-2")));
    Map<String, Object> replica = http.get("/v1/vms/web-1").map();
    assertEquals("web", replica.get("set"));
    assertEquals(Map.of("cpu", 2, "memory", 512), replica.get("resources"));
    assertNull(
        http.get("/v1/vms?set=web").items().stream()
            .filter(v -> !"web".equals(v.get("set")))
            .findAny()
            .orElse(null));
    eventually(
        "each with its workflow",
        () ->
            List.of("web-0", "web-1", "web-2").stream()
                .allMatch(
                    vm ->
                        workflowStatus(VmWorkflow.workflowId(vm))
                            == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING));
    assertEquals(
        WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING,
        workflowStatus(VmSetWorkflow.workflowId("web")));

    eventually(
        "a status that explains the waiting",
        () -> {
          Map<String, Object> status =
              (Map<String, Object>) http.get("/v1/vm-sets/web").map().get("status");
          return status.get("desired").equals(3)
              && status.get("running").equals(0)
              && status.get("pending").equals(3)
              && ((String) status.get("message")).startsWith("0 of 3 running; 3 pending, web-0: ");
        });
    assertTrue(http.get("/v1/vm-sets").items().stream().anyMatch(s -> "web".equals(s.get("name"))));
  }

  @Test
  void aSetsReplicasTakeItsTemplatesPriority() {
    Http.Reply created =
        http.post(
            "/v1/vm-sets",
            "{\"name\":\"urgent\",\"replicas\":2,\"template\":{\"command\":[\"x\"],\"priority\":70}}");
    assertEquals(201, created.status(), created.toString());
    assertEquals(70, ((java.util.Map<?, ?>) created.map().get("template")).get("priority"));
    eventually("two replicas", () -> replicas("urgent").size() == 2);
    eventually(
        "both at 70",
        () ->
            vms.findAll().stream()
                .filter(v -> "urgent".equals(v.membership().vmSet()))
                .allMatch(v -> v.scheduling().priority() == 70));
    Http.Reply bad =
        http.post(
            "/v1/vm-sets",
            "{\"name\":\"too-urgent\",\"replicas\":1,\"template\":{\"command\":[\"x\"],\"priority\":101}}");
    assertEquals(400, bad.status());
    assertTrue(bad.detail().startsWith("template.priority"), bad.detail());
  }

  @Test
  void aNewSetsReplicasAreStoredBeforeItsAnswerAndOnlyOnce() {
    assertEquals(201, http.post("/v1/vm-sets", set("at-once", 5, "\"none\"")).status());
    assertEquals(
        List.of("at-once-0", "at-once-1", "at-once-2", "at-once-3", "at-once-4"),
        replicas("at-once"),
        "no workflow task between the answer and the replicas");
    // The workflow's first pass, beside the answer's, finds them made: none twice, none "taken".
    eventually(
        "the workflow's first pass done",
        () ->
            temporal
                .fetchHistory(dev.rota.workflows.vmset.VmSetWorkflow.workflowId("at-once"))
                .getEvents()
                .stream()
                .anyMatch(e -> e.hasActivityTaskCompletedEventAttributes()));
    assertEquals(5, replicas("at-once").size());
    assertEquals(null, http.get("/v1/vm-sets/at-once").map().get("message"));
  }

  @Inject dev.rota.control.VmSetActivitiesImpl passes;

  @Test
  void passesRacingEachOtherMakeEachReplicaOnceAndEachCountsThemAll() throws Exception {
    assertEquals(201, http.post("/v1/vm-sets", set("race", 0, "\"none\"")).status());
    // The workflow's pass on the change races the four below.
    assertEquals(200, http.patch("/v1/vm-sets/race", "{\"replicas\": 6}").status());
    var ref = new dev.rota.workflows.vmset.VmSetActivities.SetRef("race");
    var pool = java.util.concurrent.Executors.newFixedThreadPool(4);
    try {
      var passes =
          pool.invokeAll(
              java.util.Collections.nCopies(
                  4,
                  (java.util.concurrent.Callable<dev.rota.workflows.vmset.SetProgress>)
                      () -> this.passes.reconcile(ref)));
      int made = 0;
      for (var pass : passes) {
        assertEquals(6, pass.get().replicas(), "a pass counts what the others made: " + pass.get());
        made += pass.get().created();
      }
      assertTrue(made <= 6, "none made twice");
    } finally {
      pool.shutdownNow();
    }
    assertEquals(6, replicas("race").size());
  }

  @Test
  void scalingDownRemovesTheHighestOrdinalsAndScalingUpAddsTheLowestMissing() {
    assertEquals(201, http.post("/v1/vm-sets", set("scale", 4, "\"none\"")).status());
    eventually("four replicas", () -> replicas("scale").size() == 4);
    eventually(
        "the last one's workflow started",
        () ->
            workflowStatus(VmWorkflow.workflowId("scale-3"))
                == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING);
    Http.Reply down = http.patch("/v1/vm-sets/scale", "{\"replicas\": 1}");
    assertEquals(200, down.status(), down.toString());
    assertEquals(1, down.map().get("replicas"));
    eventually("the three highest gone", () -> replicas("scale").equals(List.of("scale-0")));
    assertEquals(
        WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_TERMINATED,
        workflowStatus(VmWorkflow.workflowId("scale-3")),
        "their workflows were ended before their rows went");
    assertEquals(
        "set scale scaled down to 1",
        temporal
            .fetchHistory(VmWorkflow.workflowId("scale-3"))
            .getLastEvent()
            .getWorkflowExecutionTerminatedEventAttributes()
            .getReason(),
        "saying why, in the Temporal UI");

    assertEquals(200, http.patch("/v1/vm-sets/scale", "{\"replicas\": 2}").status());
    eventually("scale-1 back", () -> replicas("scale").equals(List.of("scale-0", "scale-1")));
  }

  @Test
  void aReplicaDeletedBehindTheSetsBackIsReplaced() {
    assertEquals(201, http.post("/v1/vm-sets", set("heal", 2, "\"none\"")).status());
    eventually("two replicas", () -> replicas("heal").size() == 2);
    List<Map<String, Object>> before = http.get("/v1/vms/heal-1/events").items();
    assertEquals(202, http.delete("/v1/vms/heal-1").status());
    eventually(
        "heal-1 made again, a new VM",
        () -> {
          Http.Reply again = http.get("/v1/vms/heal-1/events");
          // The new VM's row may be read before its first event is written.
          return again.status() == 200
              && !again.items().isEmpty()
              && !again.items().get(0).equals(before.get(0));
        });
  }

  @Test
  void deletingASetDeletesItsVmsThenItselfAndEndsItsWorkflow() {
    assertEquals(201, http.post("/v1/vm-sets", set("gone", 2, "{\"label\":\"zone\"}")).status());
    assertEquals(Map.of("label", "zone"), http.get("/v1/vm-sets/gone").map().get("spread"));
    Http.Reply shared =
        http.post(
            "/v1/vm-sets",
            set("shared", 0, "{\"label\":\"zone\",\"targets\":{\"b\":30,\"a\":70}}"));
    assertEquals(201, shared.status(), shared.toString());
    assertEquals(
        Map.of("label", "zone", "targets", Map.of("a", 70, "b", 30)),
        http.get("/v1/vm-sets/shared").map().get("spread"));
    eventually("two replicas", () -> replicas("gone").size() == 2);
    Http.Reply deleted = http.delete("/v1/vm-sets/gone");
    assertEquals(202, deleted.status(), deleted.toString());
    assertEquals(
        409,
        http.patch("/v1/vm-sets/gone", "{\"replicas\": 5}").status(),
        "no scaling a set being deleted");
    eventually("the set gone", () -> http.get("/v1/vm-sets/gone").status() == 404);
    assertEquals(List.of(), replicas("gone"));
    // The set's workflow deletes the row in its last activity and completes once it has the answer.
    eventually(
        "its workflow completed",
        () ->
            workflowStatus(VmSetWorkflow.workflowId("gone"))
                == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED);
    assertEquals(
        WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED,
        workflowStatus(VmSetWorkflow.workflowId("gone")));
    assertEquals(
        201,
        http.post("/v1/vm-sets", set("gone", 1, "\"none\"")).status(),
        "and its name is free again");
  }

  @Test
  void aReplicaWhoseWorkflowEndedBeforeItsRowWentIsDeletedByARunOfItsOwn() {
    assertEquals(201, http.post("/v1/vm-sets", set("half", 2, "\"none\"")).status());
    for (String replica : List.of("half-0", "half-1")) {
      eventually(
          replica + "'s workflow started",
          () ->
              workflowStatus(VmWorkflow.workflowId(replica))
                  == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING);
    }
    // As a host that died in the middle of a pass leaves it: the workflow ended, the row still
    // there.
    temporal
        .newUntypedWorkflowStub(VmWorkflow.workflowId("half-1"))
        .terminate("its host died deleting it");
    assertEquals(202, http.delete("/v1/vm-sets/half").status());
    eventually("the set gone", () -> http.get("/v1/vm-sets/half").status() == 404);
    assertEquals(List.of(), replicas("half"));
    assertEquals(
        "deleted with set half",
        temporal
            .fetchHistory(VmWorkflow.workflowId("half-0"))
            .getLastEvent()
            .getWorkflowExecutionTerminatedEventAttributes()
            .getReason());
    assertEquals(
        WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED,
        workflowStatus(VmWorkflow.workflowId("half-1")),
        "a run begun with the delete deleted the one whose workflow had ended");
  }

  @Test
  void aReplicaNameTakenByAnotherVmIsNamedAndTheOthersAreMade() {
    assertEquals(
        201, http.post("/v1/vms", "{\"name\":\"taken-1\",\"command\":[\"sleep\",\"1\"]}").status());
    assertEquals(201, http.post("/v1/vm-sets", set("taken", 3, "\"none\"")).status());
    eventually("the others made", () -> replicas("taken").equals(List.of("taken-0", "taken-2")));
    eventually(
        "the set says which name is taken",
        () -> {
          @SuppressWarnings("unchecked")
          Map<String, Object> status =
              (Map<String, Object>) http.get("/v1/vm-sets/taken").map().get("status");
          return String.valueOf(status.get("message")).contains("taken-1");
        });
    assertNull(http.get("/v1/vms/taken-1").map().get("set"), "the VM of that name is left alone");
  }

  @Test
  void putReplacesWhatTheSetAsksForAndANameTakenOrMismatchedIsRefused() {
    assertEquals(201, http.post("/v1/vm-sets", set("put", 1, "\"none\"")).status());
    assertEquals(409, http.post("/v1/vm-sets", set("put", 1, "\"none\"")).status());
    Http.Reply replaced = http.put("/v1/vm-sets/put", set("put", 2, "{\"label\":\"rack\"}"));
    assertEquals(200, replaced.status(), replaced.toString());
    assertEquals(Map.of("label", "rack"), replaced.map().get("spread"));
    eventually("scaled by PUT", () -> replicas("put").size() == 2);
    Http.Reply mismatch = http.put("/v1/vm-sets/put", set("other", 2, "\"none\""));
    assertEquals(400, mismatch.status());
    assertTrue(mismatch.detail().startsWith("name:"), mismatch.detail());
    assertEquals(404, http.put("/v1/vm-sets/nope", set("nope", 2, "\"none\"")).status());
    assertEquals(404, http.patch("/v1/vm-sets/nope", "{\"replicas\": 2}").status());
    assertEquals(404, http.delete("/v1/vm-sets/nope").status());
  }

  private Map<Integer, Long> seqsByOrdinal(String set) {
    Map<Integer, Long> seqs = new java.util.TreeMap<>();
    for (Map<String, Object> vm : http.get("/v1/vms?set=" + set).items()) {
      String name = (String) vm.get("name");
      seqs.put(
          Integer.parseInt(name.substring(set.length() + 1)),
          vms.findById(name).orElseThrow().seq());
    }
    return seqs;
  }

  @Inject dev.rota.store.VmRepository vms;

  @Test
  @SuppressWarnings("unchecked")
  void aNewTemplateIsTheSetsNextVersionRolledOutOverItsReplicasAndKeptInItsHistory() {
    assertEquals(201, http.post("/v1/vm-sets", set("roll", 3, "\"none\"")).status());
    eventually("three replicas", () -> replicas("roll").size() == 3);
    Map<Integer, Long> first = seqsByOrdinal("roll");
    assertEquals(1, http.get("/v1/vm-sets/roll").map().get("version"));

    // Not a new template: nothing is replaced.
    Http.Reply same = http.put("/v1/vm-sets/roll", set("roll", 3, "{\"label\":\"rack\"}"));
    assertEquals(200, same.status(), same.toString());
    assertEquals(1, same.map().get("version"));
    assertEquals(first, seqsByOrdinal("roll"), "the same VMs");

    String changed =
        "{\"name\":\"roll\",\"replicas\":3,\"template\":{\"command\":[\"sleep\",\"7200\"],"
            + "\"resources\":{\"cpu\":2}},\"update\":{\"maxSurge\":1,\"minHealthyTime\":\"5s\"}}";
    Http.Reply rolled = http.put("/v1/vm-sets/roll", changed);
    assertEquals(200, rolled.status(), rolled.toString());
    assertEquals(2, rolled.map().get("version"));
    assertEquals(
        Map.of(
            "maxSurge",
            1,
            "minHealthyTime",
            "5s",
            "progressDeadline",
            "10m",
            "autoRevert",
            false,
            "canary",
            0,
            "autoPromote",
            false),
        rolled.map().get("update"),
        "as given, the rest as by default");
    // Nothing runs here: replicas not available are replaced as soon as their names are free.
    eventually(
        "every replica made of version 2",
        () -> {
          Map<String, Object> status =
              (Map<String, Object>) http.get("/v1/vm-sets/roll").map().get("status");
          return ((Number) status.get("updated")).intValue() == 3 && replicas("roll").size() == 3;
        });
    Map<Integer, Long> second = seqsByOrdinal("roll");
    for (var replica : second.entrySet()) {
      assertTrue(
          !first.containsValue(replica.getValue()), "roll-" + replica.getKey() + " is a new VM");
      assertEquals(
          List.of("sleep", "7200"),
          http.get("/v1/vms/roll-" + replica.getKey()).map().get("command"));
    }
    assertTrue(second.keySet().stream().allMatch(o -> o < 4), "ordinals within 3 + maxSurge");

    List<Map<String, Object>> versions = http.get("/v1/vm-sets/roll/versions").items();
    assertEquals(List.of(2, 1), versions.stream().map(v -> v.get("version")).toList());
    assertEquals(List.of(true, false), versions.stream().map(v -> v.get("current")).toList());
    assertEquals(
        List.of("sleep", "7200"),
        ((Map<String, Object>) versions.get(0).get("template")).get("command"));
    assertEquals(404, http.get("/v1/vm-sets/nope/versions").status());
  }

  private static String sleeper(String set, int replicas, String seconds, String update) {
    return "{\"name\":\""
        + set
        + "\",\"replicas\":"
        + replicas
        + ",\"template\":{\"command\":[\"sleep\",\""
        + seconds
        + "\"],\"resources\":{\"cpu\":2}},\"update\":"
        + update
        + "}";
  }

  @SuppressWarnings("unchecked")
  private List<Object> commandOfVersion(String set, int version) {
    return http.get("/v1/vm-sets/" + set + "/versions").items().stream()
        .filter(v -> ((Number) v.get("version")).intValue() == version)
        .map(v -> (List<Object>) ((Map<String, Object>) v.get("template")).get("command"))
        .findFirst()
        .orElseThrow();
  }

  /**
   * A pass over the set, as its workflow's, on a thread of its own: the test's thread writes in the
   * test's transaction, whose locks would hold up the API's writes until the test ends.
   */
  private void passOver(String set) {
    try {
      java.util.concurrent.CompletableFuture.supplyAsync(
              () -> passes.reconcile(new dev.rota.workflows.vmset.VmSetActivities.SetRef(set)))
          .get();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> status(String set) {
    return (Map<String, Object>) http.get("/v1/vm-sets/" + set).map().get("status");
  }

  private long ofCommand(String set, String seconds) {
    return http.get("/v1/vms?set=" + set).items().stream()
        .filter(vm -> List.of("sleep", seconds).equals(vm.get("command")))
        .count();
  }

  @Test
  void aRolloutWithACanaryWaitsForItsPromotionThenGoesOn() {
    assertEquals(201, http.post("/v1/vm-sets", sleeper("can", 3, "100", "{}")).status());
    eventually("three replicas", () -> replicas("can").size() == 3);
    Http.Reply put = http.put("/v1/vm-sets/can", sleeper("can", 3, "200", "{\"canary\":1}"));
    assertEquals(200, put.status(), put.toString());
    eventually(
        "one canary made, two of the first template kept",
        () -> ofCommand("can", "200") == 1 && ofCommand("can", "100") == 2);
    passOver("can");
    assertEquals(1L, ofCommand("can", "200"), "a pass more makes no more canaries");
    assertEquals("canary", status("can").get("rollout"));

    Http.Reply promoted = http.post("/v1/vm-sets/can/promote", "");
    assertEquals(200, promoted.status(), promoted.toString());
    eventually("every replica of the new template", () -> ofCommand("can", "200") == 3);
    assertEquals(409, http.post("/v1/vm-sets/can/promote", "").status(), "promoted already");
    assertEquals(404, http.post("/v1/vm-sets/nope/promote", "").status());
  }

  @Test
  void aRolloutOneOfWhoseNewReplicasFailedGoesNoFurtherAndWithAutoRevertGoesBack() {
    for (String set : List.of("fa", "fb")) {
      assertEquals(201, http.post("/v1/vm-sets", sleeper(set, 3, "100", "{}")).status());
      eventually("three replicas of " + set, () -> replicas(set).size() == 3);
      String update = "{\"canary\":1" + (set.equals("fb") ? ",\"autoRevert\":true" : "") + "}";
      assertEquals(200, http.put("/v1/vm-sets/" + set, sleeper(set, 3, "200", update)).status());
      eventually("a canary of " + set, () -> ofCommand(set, "200") == 1);
      String canary =
          http.get("/v1/vms?set=" + set).items().stream()
              .filter(vm -> List.of("sleep", "200").equals(vm.get("command")))
              .map(vm -> (String) vm.get("name"))
              .findFirst()
              .orElseThrow();
      failed(canary);
    }
    // Promoted, it would go on; it failed, so it goes no further.
    assertEquals(200, http.post("/v1/vm-sets/fa/promote", "").status());
    passOver("fa");
    assertEquals(1L, ofCommand("fa", "200"), "no more of the failed template");
    assertEquals(2L, ofCommand("fa", "100"), "the old replicas kept");
    assertTrue(
        String.valueOf(status("fa").get("message"))
            .matches("the rollout of version 2 failed: its new replica fa-\\d failed"),
        String.valueOf(status("fa").get("message")));

    eventually(
        "fb reverted by itself, at once: version 3, the first template again",
        () -> ((Number) http.get("/v1/vm-sets/fb").map().get("version")).intValue() == 3);
    assertEquals(
        "rota (auto-revert)", http.get("/v1/vm-sets/fb/versions").items().get(0).get("createdBy"));
    eventually("the failed canary replaced", () -> ofCommand("fb", "100") == 3);
  }

  /** Shows the VM failed, as its workflow does when its task fails, on a thread of its own. */
  private void failed(String vm) {
    try {
      java.util.concurrent.CompletableFuture.runAsync(
              () -> {
                dev.rota.store.VmRow row = vms.findById(vm).orElseThrow();
                java.time.Instant now = java.time.Instant.now();
                assertEquals(
                    1,
                    vms.recordLifecycle(
                        vm,
                        row.seq(),
                        row.state().restartCount(),
                        "failed",
                        "w1",
                        "exited with code 3",
                        3,
                        1_000_000,
                        now,
                        now,
                        now));
              })
          .get();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void aPausedSetRollsNothingOutUntilItIsResumed() {
    assertEquals(201, http.post("/v1/vm-sets", sleeper("pz", 2, "100", "{}")).status());
    eventually("two replicas", () -> replicas("pz").size() == 2);
    assertEquals(200, http.post("/v1/vm-sets/pz/rollout/pause", "").status());
    assertEquals(200, http.put("/v1/vm-sets/pz", sleeper("pz", 2, "200", "{}")).status());
    passOver("pz");
    assertEquals(2L, ofCommand("pz", "100"), "nothing replaced while paused");
    assertEquals("paused", status("pz").get("rollout"));
    assertEquals(409, http.post("/v1/vm-sets/pz/promote", "").status(), "no canaries");

    assertEquals(200, http.post("/v1/vm-sets/pz/rollout/resume", "").status());
    eventually("both replaced once resumed", () -> ofCommand("pz", "200") == 2);
    assertEquals(404, http.post("/v1/vm-sets/nope/rollout/pause", "").status());
  }

  @Test
  void aRevertGivesTheSetAnEarlierTemplateAsItsNextVersionAndBadOnesNameTheField() {
    assertEquals(201, http.post("/v1/vm-sets", sleeper("back", 1, "100", "{}")).status());
    assertEquals(200, http.put("/v1/vm-sets/back", sleeper("back", 1, "200", "{}")).status());
    Http.Reply reverted = http.post("/v1/vm-sets/back/revert", "{\"version\": 1}");
    assertEquals(200, reverted.status(), reverted.toString());
    assertEquals(3, reverted.map().get("version"));
    assertEquals(
        List.of("sleep", "100"), ((Map<?, ?>) reverted.map().get("template")).get("command"));
    assertEquals(List.of("sleep", "100"), commandOfVersion("back", 3));
    eventually(
        "its replica of the first template again",
        () ->
            replicas("back").size() == 1
                && List.of("sleep", "100").equals(http.get("/v1/vms/back-0").map().get("command")));

    for (String[] bad :
        new String[][] {
          {"{\"version\": 9}", "version"},
          {"{\"version\": 0}", "version"},
          {"{}", "version"},
          {"{\"version\": 1, \"why\": \"x\"}", "why"},
        }) {
      Http.Reply refused = http.post("/v1/vm-sets/back/revert", bad[0]);
      assertEquals(400, refused.status(), refused.toString());
      assertTrue(refused.detail().startsWith(bad[1] + ":"), refused.detail());
    }
    assertEquals(3, http.get("/v1/vm-sets/back").map().get("version"), "nothing changed");
    assertEquals(404, http.post("/v1/vm-sets/nope/revert", "{\"version\": 1}").status());
  }

  @Test
  @SuppressWarnings("unchecked")
  void aStalledRolloutWithAutoRevertGoesBackToTheTemplateThatRolledOutOnceAndNoFurther() {
    // Nothing runs here: no replica ever becomes available, so every rollout stalls.
    String update = "{\"progressDeadline\":\"2s\",\"autoRevert\":true}";
    assertEquals(201, http.post("/v1/vm-sets", sleeper("auto", 2, "100", update)).status());
    assertEquals(200, http.put("/v1/vm-sets/auto", sleeper("auto", 2, "200", update)).status());
    eventually(
        "reverted by itself: version 3, the first template again",
        Duration.ofSeconds(60),
        () -> ((Number) http.get("/v1/vm-sets/auto").map().get("version")).intValue() == 3);
    List<Map<String, Object>> versions = http.get("/v1/vm-sets/auto/versions").items();
    assertEquals("rota (auto-revert)", versions.get(0).get("createdBy"));
    assertEquals(List.of("sleep", "100"), commandOfVersion("auto", 3));
    eventually(
        "the revert stalls too, and says so, without reverting again",
        Duration.ofSeconds(60),
        () -> {
          Object message =
              ((Map<String, Object>) http.get("/v1/vm-sets/auto").map().get("status"))
                  .get("message");
          return message != null && message.toString().contains("rollout of version 3 is stalled");
        });
    assertEquals(3, http.get("/v1/vm-sets/auto").map().get("version"), "no revert of a revert");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"name\":\"bad\",\"replicas\":2,\"template\":{\"runtime\":\"process\"}}|template.command",
        "{\"name\":\"bad\",\"replicas\":2,\"template\":{\"command\":[\"x\"],\"resources\":{\"cpu\":-1}}}|template.resources.cpu",
        "{\"name\":\"bad\",\"replicas\":2,\"template\":{\"command\":[\"x\"],\"restartPolicy\":\"Sometimes\"}}|template.restartPolicy",
        "{\"name\":\"bad\",\"replicas\":2,\"template\":{\"command\":\"x\"}}|template.command",
        "{\"name\":\"bad\",\"replicas\":2,\"template\":[]}|template",
        "{\"name\":\"bad\",\"replicas\":2,\"template\":{\"runtime\":\"qemu\",\"image\":\"file:///d.raw\",\"volumes\":[{\"name\":\"data\"}]}}|template.volumes",
        "{\"name\":\"bad\",\"replicas\":-1,\"template\":{\"command\":[\"x\"]}}|replicas",
        "{\"name\":\"bad\",\"replicas\":10001,\"template\":{\"command\":[\"x\"]}}|replicas",
        "{\"name\":\"bad\",\"template\":{\"command\":[\"x\"]}}|replicas",
        "{\"name\":\"bad\",\"replicas\":2,\"template\":{\"command\":[\"x\"]},\"spread\":\"everywhere\"}|spread",
        "{\"name\":\"bad\",\"replicas\":2,\"template\":{\"command\":[\"x\"]},\"spread\":{\"label\":\"\"}}|spread",
        "{\"name\":\"bad\",\"replicas\":2,\"template\":{\"command\":[\"x\"]},\"spread\":{\"zone\":\"a\"}}|spread",
        "{\"name\":\"bad\",\"replicas\":2,\"template\":{\"command\":[\"x\"]},\"spread\":{\"label\":\"zone\",\"targets\":{\"a\":70,\"b\":40}}}|spread.targets",
        "{\"name\":\"bad\",\"replicas\":2,\"template\":{\"command\":[\"x\"]},\"spread\":{\"label\":\"zone\",\"targets\":{\"a\":0}}}|spread.targets",
        "{\"name\":\"bad\",\"replicas\":2,\"template\":{\"command\":[\"x\"]},\"spread\":{\"label\":\"zone\",\"targets\":{\"a\":\"most\"}}}|spread.targets.a",
        "{\"name\":\"bad\",\"replicas\":2,\"template\":{\"command\":[\"x\"]},\"spread\":{\"label\":\"zone\",\"targets\":{\"a b\":10}}}|spread.targets",
        "{\"name\":\"bad\",\"replicas\":2,\"template\":{\"command\":[\"x\"]},\"spread\":{\"label\":\"zone\",\"targets\":[70]}}|spread.targets",
        "{\"name\":\"bad\",\"replicas\":2,\"template\":{\"command\":[\"x\"]},\"spread\":{\"label\":\"zone\",\"weights\":{\"a\":1}}}|spread",
        "{\"name\":\"bad\",\"replicas\":2,\"template\":{\"command\":[\"x\"]},\"maxUnavailable\":-1}|maxUnavailable",
        "{\"name\":\"bad\",\"replicas\":2,\"template\":{\"command\":[\"x\"]},\"update\":{\"maxSurge\":-1}}|update.maxSurge",
        "{\"name\":\"bad\",\"replicas\":2,\"template\":{\"command\":[\"x\"]},\"maxUnavailable\":0}|update.maxSurge",
        "{\"name\":\"bad\",\"replicas\":2,\"template\":{\"command\":[\"x\"]},\"update\":{\"minHealthyTime\":\"soon\"}}|update.minHealthyTime",
        "{\"name\":\"bad\",\"replicas\":2,\"template\":{\"command\":[\"x\"]},\"update\":{\"minHealthyTime\":\"2h\"}}|update.minHealthyTime",
        "{\"name\":\"bad\",\"replicas\":2,\"template\":{\"command\":[\"x\"]},\"update\":{\"canaries\":1}}|update.canaries",
        "{\"name\":\"bad\",\"replicas\":2,\"template\":{\"command\":[\"x\"]},\"update\":{\"progressDeadline\":\"0s\"}}|update.progressDeadline",
        "{\"name\":\"bad\",\"replicas\":2,\"template\":{\"command\":[\"x\"]},\"update\":{\"minHealthyTime\":\"30s\",\"progressDeadline\":\"30s\"}}|update.progressDeadline",
        "{\"name\":\"bad\",\"replicas\":2,\"template\":{\"command\":[\"x\"]},\"update\":{\"autoRevert\":\"yes\"}}|update.autoRevert",
        "{\"name\":\"bad\",\"replicas\":2,\"template\":{\"command\":[\"x\"]},\"update\":{\"canary\":-1}}|update.canary",
        "{\"name\":\"abcdefghij-abcdefghij-abcdefghij-abcdefghij-abcdefghij-abcdefghij\",\"replicas\":2,\"template\":{\"command\":[\"x\"]}}|name",
        "{\"name\":\"Bad\",\"replicas\":2,\"template\":{\"command\":[\"x\"]}}|name",
      })
  void badInputNamesItsFieldAndChangesNothing(String body, String field) {
    Http.Reply reply = http.post("/v1/vm-sets", body);
    assertEquals(400, reply.status(), reply.toString());
    assertTrue(reply.isProblem());
    assertTrue(reply.detail().startsWith(field + ":"), reply.detail());
    assertEquals(404, http.get("/v1/vm-sets/bad").status(), "nothing stored");
    assertEquals(List.of(), replicas("bad"));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "{}|replicas",
        "{\"replicas\":\"3\"}|replicas",
        "{\"replicas\":2.5}|replicas",
        "{\"replicas\":3,\"spread\":\"none\"}|spread",
      })
  void patchChangesOnlyTheReplicaCount(String body, String field) {
    if (http.get("/v1/vm-sets/patchy").status() == 404) {
      assertEquals(201, http.post("/v1/vm-sets", set("patchy", 1, "\"none\"")).status());
    }
    Http.Reply reply = http.patch("/v1/vm-sets/patchy", body);
    assertEquals(400, reply.status(), reply.toString());
    assertTrue(reply.detail().startsWith(field + ":"), reply.detail());
    assertEquals(1, http.get("/v1/vm-sets/patchy").map().get("replicas"), "unchanged");
  }

  @Test
  @SuppressWarnings("unchecked")
  void aTemplatesTtlGoesToEveryReplica() {
    Http.Reply created =
        http.post(
            "/v1/vm-sets",
            "{\"name\":\"jobs\",\"replicas\":1,\"template\":{\"command\":[\"true\"],\"ttlAfterFinished\":\"30s\"}}");
    assertEquals(201, created.status(), created.toString());
    assertEquals(
        "30s", ((Map<String, Object>) created.map().get("template")).get("ttlAfterFinished"));
    eventually("its replica", () -> replicas("jobs").equals(List.of("jobs-0")));
    assertEquals("30s", http.get("/v1/vms/jobs-0").map().get("ttlAfterFinished"));
    Http.Reply bad =
        http.post(
            "/v1/vm-sets",
            "{\"name\":\"jobs-2\",\"replicas\":1,\"template\":{\"command\":[\"true\"],\"ttlAfterFinished\":\"-5s\"}}");
    assertEquals(400, bad.status());
    assertTrue(bad.detail().startsWith("template.ttlAfterFinished:"), bad.detail());
  }
}
