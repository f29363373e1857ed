package dev.rota.scheduler.term;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.store.OutboxRepository;
import dev.rota.store.OutboxRow;
import dev.rota.store.VmRepository;
import dev.rota.store.VmRow;
import dev.rota.store.WorkerRepository;
import dev.rota.store.WorkerRow;
import dev.rota.testing.TestClock;
import dev.rota.workflows.cluster.ApplyResult;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.annotation.MockBean;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The apply step's order and its news, against fake agents that report nothing themselves: calls to
 * agents go ahead of older news, and a placing's news waits for what the agent says of its start
 * for the probe interval (10 s here).
 */
@MicronautTest(transactional = false, rebuildContext = true)
@Property(name = "rota.workers.probe-interval", value = "10s")
class ActionApplierTest {
  @Inject ActionApplier applier;
  @Inject TaskObservations observations;
  @Inject OutboxRepository actions;
  @Inject VmRepository vms;
  @Inject WorkerRepository workers;
  @Inject FakeAgents agents;
  @Inject dev.rota.store.VmEventRepository events;
  @Inject TestClock clock;
  @Inject io.micronaut.transaction.TransactionOperations<java.sql.Connection> tx;

  /**
   * What the VMs' workflows were told, in order: "vm event", and whether w1 had been asked to start
   * anything by then.
   */
  private final List<String> told = new CopyOnWriteArrayList<>();

  /**
   * Tells as the real notifier does (the VM's earlier news with its newest), into {@link #told}.
   */
  @MockBean(VmNotifier.class)
  VmNotifier notifier() {
    return new VmNotifier(null, null, null, null, null) {
      @Override
      public List<Long> notify(OutboxRow news) {
        told.add(
            news.vm()
                + " "
                + news.event()
                + (agents.startCalls("w1") > 0 ? " after a start" : " before any start"));
        List<Long> done = new ArrayList<>();
        actions.eventsUpTo(news.vm(), news.id()).forEach(e -> done.add(e.id()));
        return done;
      }
    };
  }

  private void worker(String name) {
    workers.save(
        WorkerRow.registered(
            name,
            FakeAgents.endpoint(name),
            Map.of("cpu", 64L, "memory", 65536L),
            Map.of(),
            List.of("process"),
            null,
            "ready",
            "ready",
            clock.instant()));
  }

  /**
   * Submitted and placed on {@code worker} now: its start and its news in the outbox, as a term
   * leaves them.
   */
  private void placed(String vm, String worker) {
    VmRow row = dev.rota.store.StoreFixtures.submitted(vms, vm, 1, clock.instant());
    Instant now = clock.instant();
    assertEquals(
        1,
        tx.executeWrite(
                s ->
                    observations.placeAll(
                        List.of(new TaskObservations.Placing(vm, row.seq(), 0, worker, null)), now))
            .size());
  }

  private List<OutboxRow> newsFor(String vm) {
    return actions.newsAfter(0, 100_000).stream().filter(a -> vm.equals(a.vm())).toList();
  }

  @Test
  void aPlacingsNewsWaitsForTheAgentsWordOfTheStartForTheProbeIntervalThenGoesAlone() {
    worker("w1");
    placed("a", "w1");

    ApplyResult first = applier.apply();
    assertEquals(1, first.started(), first.toString());
    assertEquals(1, agents.starts("w1", "a.0"));
    assertEquals(
        0,
        first.notified(),
        "the placing waits to go with the start's report in one signal: " + told);
    assertEquals(List.of("placed"), newsFor("a").stream().map(OutboxRow::event).toList());

    clock.advance(Duration.ofSeconds(9));
    assertEquals(
        0, applier.apply().notified(), "within the probe interval it still waits: " + told);

    // Neither the agent's report nor the probe said more (a VM still booting): it hears of its
    // placing alone.
    clock.advance(Duration.ofSeconds(2));
    ApplyResult late = applier.apply();
    assertEquals(1, late.notified(), late.toString());
    assertEquals(List.of("a placed after a start"), told);
    assertTrue(newsFor("a").isEmpty(), "taken out of the outbox once told");
    assertEquals(1, agents.starts("w1", "a.0"), "started once");
  }

  @Test
  void aTaskLeftOfADeletedVmOfTheSameNameIsNeitherTakenForTheNewOneNorRemovedForIt() {
    worker("w1");
    agents.putByHand("w1", "c.0", 999L); // of a VM "c" deleted while w1 could not be reached
    placed("c", "w1");
    long seq = vms.findById("c").orElseThrow().seq();

    ApplyResult refused = applier.apply();
    assertEquals(0, refused.started(), "not \"already there\": " + refused);
    assertEquals(0, agents.starts("w1", "c.0"));
    assertEquals(List.of("c.0"), agents.tasks("w1"), "the old task stays for its own removal");

    // A removal of the new VM's task (its workflow stopping it) leaves the old one.
    actions.add(OutboxRow.REMOVE, "w1", "c.0", null, seq, "stopped by request", clock.instant());
    ApplyResult kept = applier.apply();
    assertEquals(0, kept.started(), "still held: " + kept);
    assertEquals(0, agents.starts("w1", "c.0"));
    // The term's removal of the old task names the old submission; the new VM's start, tried again
    // after it in the same pass, then starts its own task.
    actions.add(OutboxRow.REMOVE, "w1", "c.0", null, 999L, "VM c is gone", clock.instant());
    ApplyResult freed = applier.apply();
    assertEquals(1, freed.removed(), freed.toString());
    assertEquals(1, freed.started(), freed.toString());
    assertEquals(1, agents.starts("w1", "c.0"));
    assertEquals(seq, agents.spec("w1", "c.0").submission(), "started as its submission");
  }

  /**
   * User data a claim owes a running task reaches it through its agent once, and leaves the outbox;
   * one that cannot be delivered (no such task there, a secret not there) leaves it too, and the
   * VM's events say why.
   */
  /**
   * User data owed a task that is not on the worker named (a claimed replica that resumed on
   * another worker than where its memory was saved, or whose start has not reached its agent yet)
   * waits for it there, or follows it to where it was placed.
   */
  @Test
  void aClaimsUserDataWaitsForItsTaskAndFollowsItToTheWorkerItWasPlacedOn() {
    worker("w1");
    worker("w2");
    long seq = dev.rota.store.StoreFixtures.submitted(vms, "f", 1, clock.instant()).seq();
    actions.addDelivery("w1", "f.0", "f", seq, "token=2", null, clock.instant());
    applier.apply();
    assertEquals(List.of(), agents.deliveries("w1"));
    assertEquals(
        List.of("w1"),
        actions.agentCallsAfter(0, 100).stream()
            .filter(a -> a.kind().equals("deliver"))
            .map(OutboxRow::worker)
            .toList(),
        "not placed yet: it waits");

    tx.executeWrite(
        st ->
            observations.placeAll(
                List.of(new TaskObservations.Placing("f", seq, 0, "w2", null)), clock.instant()));
    assertEquals(1, applier.apply().started());
    applier.apply();
    assertEquals(List.of(new FakeAgents.Delivery("f.0", seq, "token=2")), agents.deliveries("w2"));
    assertTrue(
        actions.agentCallsAfter(0, 100).stream().noneMatch(a -> a.kind().equals("deliver")),
        "delivered, and taken out");
  }

  @Test
  void aClaimsUserDataReachesItsRunningTaskAndOneNotDeliveredIsToldInTheVmsEvents() {
    worker("w1");
    placed("d", "w1");
    assertEquals(1, applier.apply().started());
    long seq = vms.findById("d").orElseThrow().seq();

    actions.addDelivery("w1", "d.0", "d", seq, "#!/bin/sh\necho hi\n", null, clock.instant());
    actions.addDelivery("w1", "d.7", "d", seq, "token=1", null, clock.instant());
    actions.addDelivery("w1", "d.0", "d", seq, null, "no-such-secret", clock.instant());
    applier.apply();

    assertEquals(
        List.of(new FakeAgents.Delivery("d.0", seq, "#!/bin/sh\necho hi\n")),
        agents.deliveries("w1"));
    assertTrue(
        actions.agentCallsAfter(0, 100).stream().noneMatch(a -> a.kind().equals("deliver")),
        "none left in the outbox");
    // The calls go at once, in lanes of their own: their events come in any order.
    List<String> said =
        events.page("d", 0, 100).stream()
            .filter(e -> e.type().equals("user-data"))
            .map(dev.rota.store.VmEventRow::message)
            .sorted()
            .toList();
    assertEquals(3, said.size(), said.toString());
    assertEquals("user data delivered to task d.0", said.get(0));
    // This context has no secrets key: no secret can be opened.
    assertEquals(
        "user data not delivered to task d.0: this cluster has no secrets key: its operator sets"
            + " ROTA_SECRETS_KEY",
        said.get(1));
    assertTrue(said.get(2).startsWith("user data not delivered to task d.7: "), said.get(2));
  }

  @Test
  void aFullBatchOfOlderNewsDoesNotHoldBackAStartQueuedAfterIt() {
    worker("w1");
    // Older news than one batch holds (of VMs long placed and since ended), as a busy term leaves
    // behind.
    Instant old = clock.instant().minusSeconds(60);
    for (int i = 0; i < ActionApplier.BATCH + 1; i++) {
      actions.addEvent(
          actions.nextId(),
          "w2",
          "old-" + i + ".0",
          "old-" + i,
          i,
          "exited",
          0,
          "exited 0",
          old,
          old);
    }
    placed("b", "w1");

    ApplyResult applied = applier.apply();

    assertEquals(1, applied.started(), applied.toString());
    assertEquals(ActionApplier.BATCH + 1, applied.notified(), applied.toString());
    assertEquals(ActionApplier.BATCH + 1, told.size());
    assertTrue(
        told.stream().allMatch(t -> t.endsWith("after a start")),
        "the start went first: " + told.get(0));
    assertEquals(
        List.of("placed"),
        newsFor("b").stream().map(OutboxRow::event).toList(),
        "b's placing waits for its start's report");
  }
}
