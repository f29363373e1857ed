package dev.rota.host;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rota.workflows.cluster.ClusterWorkflow;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Temporal loses Rota's workflows and the hosts make them good by themselves, with nothing
 * restarted: an operator terminates the scheduler's workflow during a burst of submissions; later
 * the Temporal server is replaced by an empty one on the same address (a dev server started
 * afresh). Every VM a user was told was accepted runs, each keeps its one process, a set keeps its
 * replicas, and a user's action on a VM works again, also on one whose workflow alone was
 * terminated. A VM's run begun by a build from before the release line is ended by the next host to
 * start and begun again on this line's queue. How soon terms came back is printed and kept in
 * {@code target/lost-workflows.txt}; nothing here asserts speed.
 */
class LostWorkflowsIT {
  private static final int BURST = 60;
  private static final int FIRST_SLEEP = 900_000;

  @Test
  void aTerminatedSchedulerAndAnEmptiedServerAreMadeGoodByTheHostsThemselves() throws Exception {
    try (ProductionStack stack =
        ProductionStack.start(
            ProductionStack.folder("lost-workflows"),
            2,
            2,
            Map.of("ROTA_SCHEDULER_INTERVAL", "1s"))) {
      RotaClient api = stack.admin(0);

      Vms.Burst burst = Vms.burst(BURST, 4, "lost", FIRST_SLEEP, n -> stack.admin(n % 2));
      Set<String> acked = burst.acked;
      burst.awaitFirstTenth();
      Instant terminatedAt = Instant.now();
      stack
          .temporalClient
          .newUntypedWorkflowStub(ClusterWorkflow.WORKFLOW_ID)
          .terminate("an operator's mistake");
      burst.finish();
      eventually("a new run of the scheduler terms", () -> lastTermAt(api).isAfter(terminatedAt));
      Duration afterTerminate = Duration.between(terminatedAt, lastTermAt(api));
      eventually("every acknowledged VM running", () -> Vms.running(api).containsAll(acked));
      Map<String, Long> pids = Vms.onlyOneProcessEachAndPlacedOnce(api, acked);

      String set =
          "{\"name\":\"kept\",\"replicas\":2,\"template\":{\"command\":[\"sleep\",\""
              + (FIRST_SLEEP + 99_000)
              + "\"]}}";
      assertEquals(201, api.api("POST", "/v1/vm-sets", set).status());
      eventually(
          "the set's replicas running",
          () -> Vms.running(api).containsAll(Set.of("kept-0", "kept-1")));
      String replicaWorker = String.valueOf(api.vm("kept-0").get("worker"));

      // A dev server started afresh on the same address: no workflow, no history, and none of
      // Rota's search attributes, which the hosts register again before they restore.
      stack.temporal.halt();
      try (Stream<Path> files = Files.list(stack.temporal.dir())) {
        for (Path f :
            files.filter(f -> f.getFileName().toString().startsWith("temporal.sqlite")).toList()) {
          Files.delete(f);
        }
      }
      Instant emptiedAt = Instant.now();
      stack.temporal.resumeBare();
      eventually("terms again", () -> lastTermAt(api).isAfter(emptiedAt));
      Duration afterEmptied = Duration.between(emptiedAt, lastTermAt(api));
      try {
        eventually(
            "every VM and the set have a running workflow again",
            () ->
                running(stack, "VmWorkflow") == acked.size() + 2
                    && running(stack, "VmSetWorkflow") == 1);
      } catch (AssertionError e) {
        throw new AssertionError(
            e.getMessage()
                + " ("
                + running(stack, "VmWorkflow")
                + " of "
                + (acked.size() + 2)
                + " VM workflows and "
                + running(stack, "VmSetWorkflow")
                + " set workflow running)",
            e);
      }
      Duration restored = Duration.between(emptiedAt, Instant.now());
      Map<String, Long> after = Vms.onlyOneProcessEachAndPlacedOnce(api, acked);
      pids.forEach((vm, pid) -> assertEquals(pid, after.get(vm), vm + " kept its process"));
      assertEquals(
          replicaWorker,
          String.valueOf(api.vm("kept-0").get("worker")),
          "the replica stayed where it ran");

      String someVm = acked.iterator().next();
      assertEquals(
          202,
          api.api("POST", "/v1/vms/" + someVm + "/stop", null).status(),
          "actions reach the restored workflow");
      eventually(someVm + " stopped", () -> "stopped".equals(api.vm(someVm).get("status")));
      // One VM's workflow terminated by hand: a user's action on it starts it again from its row
      // first.
      String another = acked.stream().filter(vm -> !vm.equals(someVm)).findFirst().orElseThrow();
      stack
          .temporalClient
          .newUntypedWorkflowStub(dev.rota.workflows.vm.VmWorkflow.workflowId(another))
          .terminate("by hand");
      RotaClient.Reply stop = api.api("POST", "/v1/vms/" + another + "/stop", null);
      assertEquals(
          202, stop.status(), "the action restored the workflow and reached it: " + stop.body());
      eventually(another + " stopped", () -> "stopped".equals(api.vm(another).get("status")));
      assertEquals("ok", api.api("GET", "/v1/cluster", null).map().get("scheduler"));

      // The restored set deleted: its replicas' workflows are ended, then their processes and
      // rows go, then the set.
      String replicaSleep = String.valueOf(FIRST_SLEEP + 99_000);
      assertEquals(
          2,
          Vms.sleeping().getOrDefault(replicaSleep, List.of()).size(),
          "the replicas' two processes");
      assertEquals(202, api.api("DELETE", "/v1/vm-sets/kept", null).status());
      eventually("the set gone", () -> api.api("GET", "/v1/vm-sets/kept", null).status() == 404);
      eventually("its replicas' processes gone", () -> !Vms.sleeping().containsKey(replicaSleep));
      assertEquals(404, api.api("GET", "/v1/vms/kept-0", null).status());
      for (String replica : List.of("kept-0", "kept-1")) {
        var history =
            stack.temporalClient.fetchHistory(dev.rota.workflows.vm.VmWorkflow.workflowId(replica));
        assertEquals(
            "deleted with set kept",
            history.getLastEvent().getWorkflowExecutionTerminatedEventAttributes().getReason(),
            replica + "'s workflow ended saying why");
      }

      String figures =
          String.format(
              "lost workflows: %d VMs acknowledged of %d submitted during the scheduler's terminate%n"
                  + "  the next term started %.1f s after the terminate%n"
                  + "  Temporal replaced by an empty server: the next term started %.1f s after, every VM's and the set's"
                  + " workflow back within %.1f s%n",
              acked.size(),
              BURST,
              afterTerminate.toMillis() / 1000.0,
              afterEmptied.toMillis() / 1000.0,
              restored.toMillis() / 1000.0);
      System.out.print(figures);
      Files.writeString(Path.of("target", "lost-workflows.txt"), figures);
    }
  }

  private static long running(ProductionStack stack, String type) {
    return stack
        .temporalClient
        .listExecutions("WorkflowType = '" + type + "' AND ExecutionStatus = 'Running'")
        .count();
  }

  private static Instant lastTermAt(RotaClient api) {
    Object at = api.api("GET", "/v1/cluster", null).map().get("lastTermAt");
    return at == null ? Instant.EPOCH : Instant.parse((String) at);
  }
}
