package dev.rota.scheduler.term;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.rota.store.WorkerRepository;
import dev.rota.store.WorkerRow;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The observe step when more agents are due than can be asked within one call's time. */
@MicronautTest(rebuildContext = true, transactional = false)
@Property(name = "rota.agents.parallelism", value = "1")
@Property(name = "rota.agents.timeout", value = "300ms")
class TermObserverTest {
  @Inject TermObserver observer;
  @Inject FakeAgents agents;
  @Inject WorkerRepository workers;
  @Inject Clock clock;
  @Inject dev.rota.store.AgentTaskRepository listed;
  @Inject io.micronaut.transaction.TransactionOperations<java.sql.Connection> tx;

  /** Outside an activity: nothing stops the term. */
  private static final dev.rota.scheduler.Heartbeats.Beating NOT_WATCHED = () -> {};

  private void worker(String name) {
    workers.save(
        WorkerRow.registered(
            name,
            FakeAgents.endpoint(name),
            Map.of("cpu", 4L),
            Map.of(),
            List.of("process"),
            null,
            "not-ready",
            "new",
            clock.instant()));
  }

  @Test
  void aProbeThatNeverGotToBeSentCountsAgainstNoAgentAndIsDueAgain() {
    worker("obs-hangs");
    worker("obs-waits");
    agents.set("obs-hangs", FakeAgents.Mode.HANGS);
    var seen = observer.observe();
    WorkerRow hung = workers.findById("obs-hangs").orElseThrow();
    WorkerRow waited = workers.findById("obs-waits").orElseThrow();
    assertEquals(1, hung.probeFailures(), "asked, and no answer in time");
    assertEquals(
        0, waited.probeFailures(), "never asked: the one call at a time was taken all along");
    assertNull(waited.lastProbeAt(), "so still due");
    assertEquals(1, seen.probed());
  }

  @Test
  void aTermAsksAtMostFourRoundsOfItsCallsAtOnceAndTheRestFirstNextTerm() {
    List<String> names = List.of("obs-a", "obs-b", "obs-c", "obs-d", "obs-e");
    names.forEach(this::worker);
    assertEquals(4, observer.observe().probed(), "4 rounds of 1 call at a time");
    assertNull(
        workers.findById("obs-e").orElseThrow().lastProbeAt(),
        "the last of the due, by name as all are new");
    names
        .subList(0, 4)
        .forEach(n -> assertEquals(0, workers.findById(n).orElseThrow().probeFailures()));

    // Not ready until a term judges them, the four answered are due again at once, but after it.
    observer.observe();
    assertNotNull(
        workers.findById("obs-e").orElseThrow().lastProbeAt(), "the one left over goes first");
  }

  @Test
  void aTermThatStalledAfterAskingWritesNothingOverWhatALaterTermSaw() {
    worker("obs-stale");
    agents.putByHand("obs-stale", "kept.0");
    observer.observe();
    assertEquals(
        List.of("kept.0"),
        listed.findByWorkerInList(List.of("obs-stale")).stream().map(t -> t.taskId()).toList());

    // While this term waits on the agent's answer (a pause), a later term stores what it saw.
    java.time.Instant later = clock.instant().plusSeconds(60);
    agents.staleNextProbe(
        "obs-stale", java.util.Set.of("kept.0"), () -> workers.probeAnswered("obs-stale", later));
    observer.observe();
    assertEquals(
        List.of("kept.0"),
        listed.findByWorkerInList(List.of("obs-stale")).stream().map(t -> t.taskId()).toList(),
        "the stalled term's older list is dropped");
    assertEquals(
        later, workers.findById("obs-stale").orElseThrow().lastProbeAt(), "and its answer too");
  }

  /**
   * A woken term asks at once only the agents whose answer decides where VMs may go, here a new
   * worker, and checks a ready worker due for its routine probe after its actions.
   */
  @Test
  void aWokenTermChecksReadyWorkersAfterItsActionsAndNewOnesAtOnce() {
    worker("obs-ready");
    observer.observe();
    WorkerRow asked = workers.findById("obs-ready").orElseThrow();
    assertEquals(1, workers.decideHealth(asked.name(), asked.version(), "ready", "answered", null));
    java.time.Instant longAgo = clock.instant().minusSeconds(3600);
    tx.executeWrite(
        status -> {
          try (var update =
              status
                  .getConnection()
                  .prepareStatement("UPDATE workers SET last_probe_at = ? WHERE name = ?")) {
            update.setObject(
                1, java.time.OffsetDateTime.ofInstant(longAgo, java.time.ZoneOffset.UTC));
            update.setString(2, "obs-ready");
            return update.executeUpdate();
          }
        }); // long due again
    worker("obs-new");

    var first = observer.observe(NOT_WATCHED, true);

    assertEquals(1, first.probed(), "the new worker only");
    assertNotNull(workers.findById("obs-new").orElseThrow().lastProbeAt());
    assertEquals(
        longAgo.getEpochSecond(),
        workers.findById("obs-ready").orElseThrow().lastProbeAt().getEpochSecond(),
        "the ready one not yet");

    var after = observer.checkReady(NOT_WATCHED);

    assertEquals(1, after.probed(), "the ready one, now");
    assertEquals(2, first.and(after).probed(), "the term asked both");
    assertEquals(0, workers.findById("obs-ready").orElseThrow().probeFailures(), "and it answered");
  }
}
