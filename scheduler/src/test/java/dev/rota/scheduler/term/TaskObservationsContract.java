package dev.rota.scheduler.term;

import static dev.rota.store.StoreFixtures.T0;
import static dev.rota.store.StoreFixtures.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.store.OutboxRepository;
import dev.rota.store.OutboxRow;
import dev.rota.store.StoreFixtures;
import dev.rota.store.VmEventRepository;
import dev.rota.store.VmEventRow;
import dev.rota.store.VmRepository;
import dev.rota.store.VmRow;
import dev.rota.store.VmTaskRepository;
import dev.rota.store.VmTaskRow;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The term's batched writes of what it observed ({@link TaskObservations}) do what the store's own
 * statements allow, one at a time, on whichever database the subclass runs against.
 */
abstract class TaskObservationsContract {
  @Inject TaskObservations observations;
  @Inject OutboxRepository actions;
  @Inject VmRepository vms;
  @Inject VmTaskRepository tasks;
  @Inject VmEventRepository events;
  @Inject io.micronaut.transaction.TransactionOperations<java.sql.Connection> tx;

  VmRow vm(String name, String status, String worker) {
    return StoreFixtures.vm(vms, name, status, worker);
  }

  /**
   * A term's placements, written as batches of the repositories' own statements: each as {@link
   * VmTaskRepository#place} would, its VM no longer waiting, its log line, and its start followed
   * by its news.
   */
  @Test
  void placementsWrittenAsBatchesAreThoseThePlaceStatementAllows() {
    VmRow a = vms.save(vm(unique("a"), "pending", null));
    vms.explainPending(a.name(), "no worker fits", true);
    VmRow b = vms.save(vm(unique("b"), "pending", null));
    VmRow stopped = vms.save(vm(unique("s"), "stopped", null));
    VmRow placedAlready = vms.save(vm(unique("p"), "pending", null));
    assertEquals(
        1,
        tasks.place(
            VmTaskRow.id(placedAlready.seq(), placedAlready.name() + ".0"),
            placedAlready.name(),
            placedAlready.seq(),
            0,
            "w1",
            T0));
    Instant at = T0.plusMillis(1234);

    List<TaskObservations.Placing> placed =
        tx.executeWrite(
            s ->
                observations.placeAll(
                    List.of(
                        new TaskObservations.Placing(
                            a.name(), a.seq(), 0, "w1", "it holds the image"),
                        new TaskObservations.Placing(stopped.name(), stopped.seq(), 0, "w1", null),
                        new TaskObservations.Placing(b.name(), b.seq(), 0, "w2", null),
                        new TaskObservations.Placing(
                            placedAlready.name(), placedAlready.seq(), 0, "w2", null)),
                    at));

    assertEquals(
        List.of(a.name(), b.name()),
        placed.stream().map(p -> p.vm()).toList(),
        "not the stopped one, nor one placed");
    VmTaskRow task = tasks.findById(VmTaskRow.id(a.seq(), a.name() + ".0")).orElseThrow();
    assertEquals("w1", task.worker());
    assertEquals("scheduled", task.state());
    assertEquals(at, task.placedAt());
    assertEquals(
        "w1",
        tasks
            .findById(VmTaskRow.id(placedAlready.seq(), placedAlready.name() + ".0"))
            .orElseThrow()
            .worker());
    assertEquals(null, vms.findById(a.name()).orElseThrow().notes().pendingReason());
    assertFalse(vms.findById(a.name()).orElseThrow().notes().fitsNowhere(), "placed: it fits");
    List<VmEventRow> log = events.page(a.name(), 0, 100);
    assertEquals("scheduled", log.get(log.size() - 1).type());
    assertEquals(
        "scheduled on worker w1 as task " + a.name() + ".0 (it holds the image)",
        log.get(log.size() - 1).message());
    assertEquals(at, log.get(log.size() - 1).time());

    List<OutboxRow> outbox =
        actions.after(0, 100_000).stream()
            .filter(
                r ->
                    List.of(a.name(), b.name(), stopped.name(), placedAlready.name())
                        .contains(r.vm()))
            .toList();
    assertEquals(
        List.of(
            OutboxRow.START + " " + a.name(),
            OutboxRow.NOTIFY + " " + a.name(),
            OutboxRow.START + " " + b.name(),
            OutboxRow.NOTIFY + " " + b.name()),
        outbox.stream().map(r -> r.kind() + " " + r.vm()).toList(),
        "each start followed by its news");
    OutboxRow news = outbox.get(3);
    assertEquals("placed", news.event());
    assertEquals("w2", news.worker());
    assertEquals(b.name() + ".0", news.taskId());
    assertEquals(b.seq(), news.vmSeq());
    assertEquals(at, news.createdAt());
  }

  /**
   * Starts as an agent's report brings them, as batches: each task recorded running once, its VM
   * shown running at the news's id, a log line and the news each, in the order given.
   */
  @Test
  void startsWrittenAsBatchesAreRecordedOnceWithTheirNews() {
    List<VmRow> vmRows = new java.util.ArrayList<>();
    List<VmTaskRow> placed = new java.util.ArrayList<>();
    for (String prefix : List.of("r1", "r2", "r3")) {
      VmRow vm = vms.save(vm(unique(prefix), "scheduled", "w1"));
      String id = VmTaskRow.id(vm.seq(), vm.name() + ".0");
      assertEquals(1, tasks.place(id, vm.name(), vm.seq(), 0, "w1", T0));
      vmRows.add(vm);
      placed.add(tasks.findById(id).orElseThrow());
    }
    Instant at = T0.plusMillis(4321);
    java.util.function.Function<List<VmTaskRow>, List<OutboxRow>> start =
        rows ->
            tx.executeWrite(
                s ->
                    observations.reachedAll(
                        rows.stream()
                            .map(
                                r ->
                                    new TaskObservations.Reaching(
                                        r,
                                        dev.rota.core.model.TaskState.RUNNING,
                                        null,
                                        "booted",
                                        null,
                                        true))
                            .toList(),
                        at));
    assertEquals(1, start.apply(List.of(placed.get(1))).size());

    List<OutboxRow> news = start.apply(placed);

    assertEquals(
        List.of(vmRows.get(0).name(), vmRows.get(2).name()),
        news.stream().map(OutboxRow::vm).toList(),
        "the one recorded already is not recorded again");
    assertTrue(news.get(0).id() < news.get(1).id(), "ids in the order given");
    for (OutboxRow n : news) {
      VmRow vm = vms.findById(n.vm()).orElseThrow();
      assertEquals("running", vm.state().status());
      assertEquals("w1", vm.state().worker());
      assertEquals(n.id(), vm.state().taskEventId(), "shown at its news");
      assertEquals(at, vm.state().startedAt());
      VmTaskRow task = tasks.findById(VmTaskRow.id(vm.seq(), vm.name() + ".0")).orElseThrow();
      assertEquals("running", task.state());
      assertEquals(at, task.startedAt());
      List<VmEventRow> log = events.page(vm.name(), 0, 100);
      assertEquals("started", log.get(log.size() - 1).type());
      assertEquals("booted", log.get(log.size() - 1).message());
      OutboxRow stored = actions.after(n.id() - 1, 1).stream().findFirst().orElseThrow();
      assertEquals(n, stored, "the news returned is the news stored");
      assertEquals("started", stored.event());
      assertEquals(at, stored.startedAt());
    }
  }

  /**
   * A term's failovers as batches: the lost task ended, the next generation placed on the target
   * with its start and its news, each VM's start before its news; a VM that moved on since the plan
   * is left alone.
   */
  @Test
  void failoversWrittenAsBatchesLoseTheOldTaskAndPlaceTheNextGeneration() {
    VmRow a = vms.save(vm(unique("a"), "running", "w1"));
    VmRow stopped = vms.save(vm(unique("s"), "stopped", "w1"));
    String lostId = VmTaskRow.id(a.seq(), a.name() + ".0");
    assertEquals(1, tasks.place(lostId, a.name(), a.seq(), 0, "w1", T0));
    assertEquals(1, tasks.started(lostId, T0, "running"));
    Instant at = T0.plusSeconds(60);

    List<dev.rota.core.scheduling.TermPlan.Failover> done =
        tx.executeWrite(
            s ->
                observations.failOverAll(
                    List.of(
                        new dev.rota.core.scheduling.TermPlan.Failover(
                            stopped.name(), stopped.seq(), 0, "w1", "w2", null),
                        new dev.rota.core.scheduling.TermPlan.Failover(
                            a.name(), a.seq(), 0, "w1", "w2", "least loaded")),
                    vm -> vm,
                    at));

    assertEquals(List.of(a.name()), done.stream().map(f -> f.vm()).toList(), "not the stopped one");
    assertEquals(1, vms.findById(a.name()).orElseThrow().state().restartCount());
    assertEquals(0, vms.findById(stopped.name()).orElseThrow().state().restartCount());
    VmTaskRow lost = tasks.findById(lostId).orElseThrow();
    assertEquals("lost", lost.state());
    assertEquals(at, lost.endedAt());
    VmTaskRow next = tasks.findById(VmTaskRow.id(a.seq(), a.name() + ".1")).orElseThrow();
    assertEquals("w2", next.worker());
    assertEquals("scheduled", next.state());
    String message =
        "worker w1 went offline with task "
            + a.name()
            + ".0; failed over to worker w2 as task "
            + a.name()
            + ".1 (least loaded)";
    List<VmEventRow> log = events.page(a.name(), 0, 100);
    assertEquals("failed-over", log.get(log.size() - 1).type());
    assertEquals(message, log.get(log.size() - 1).message());
    List<OutboxRow> outbox =
        actions.after(0, 100_000).stream()
            .filter(r -> List.of(a.name(), stopped.name()).contains(r.vm()))
            .toList();
    assertEquals(
        List.of(
            OutboxRow.START + " " + a.name() + ".1 w2",
            OutboxRow.NOTIFY + " " + a.name() + ".1 w2"),
        outbox.stream().map(r -> r.kind() + " " + r.taskId() + " " + r.worker()).toList());
    assertEquals("failed-over", outbox.get(1).event());
    assertEquals(message, outbox.get(1).detail());
  }
}
