package dev.rota.scheduler.term;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rota.store.OutboxRow;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How a term's starts and removals become calls to agents. */
class AgentCallsByWorkerTest {
  private long ids;

  private OutboxRow action(String kind, String worker) {
    long id = ++ids;
    return new OutboxRow(
        id,
        kind,
        worker,
        "vm" + id + ".0",
        "vm" + id,
        null,
        Instant.EPOCH,
        0,
        1L,
        null,
        null,
        null,
        null,
        null);
  }

  private List<OutboxRow> starts(String worker, int n) {
    List<OutboxRow> starts = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      starts.add(action(OutboxRow.START, worker));
    }
    return starts;
  }

  /** Each worker's calls, as the number of actions in each. */
  private static List<List<Integer>> sizes(List<OutboxRow> batch) {
    return AgentCallPass.callsByWorker(batch).stream()
        .map(calls -> calls.stream().map(List::size).toList())
        .toList();
  }

  @Test
  void aWorkersStartsGoInOneCallAndEachRemovalInItsOwn() {
    List<OutboxRow> batch = new ArrayList<>(starts("w1", 5));
    batch.add(action(OutboxRow.REMOVE, "w1"));
    batch.addAll(starts("w2", 10));
    batch.add(action(OutboxRow.REMOVE, "w2"));
    batch.add(action(OutboxRow.REMOVE, "w2"));
    batch.addAll(starts("w1", 5));

    assertEquals(List.of(List.of(1, 10), List.of(1, 1, 10)), sizes(batch));
    List<OutboxRow> w1Starts = AgentCallPass.callsByWorker(batch).iterator().next().get(1);
    assertEquals(
        List.of(1L, 2L, 3L, 4L, 5L, 19L, 20L, 21L, 22L, 23L),
        w1Starts.stream().map(OutboxRow::id).toList(),
        "in the order of the outbox");
  }

  @Test
  void manyStartsOnOneWorkerAreSpreadOverItsLanesInCallsOfAtLeastSixteen() {
    assertEquals(List.of(List.of(16)), sizes(starts("w", 16)));
    assertEquals(List.of(List.of(16, 1)), sizes(starts("w", 17)));
    assertEquals(List.of(List.of(16, 16, 16, 16, 16, 16, 4)), sizes(starts("w", 100)));
    assertEquals(List.of(List.of(25, 25, 25, 25, 25, 25, 25, 25)), sizes(starts("w", 200)));
    assertEquals(
        List.of(List.of(100, 100, 100, 100, 100, 100, 100, 100, 100, 100)),
        sizes(starts("w", 1000)),
        "at most TaskStarts.MOST a call");
  }

  @Test
  void aStartOfATaskIdARemovalFreesGoesAloneAfterItInItsLaneAndTheRestGoAtOnce() {
    OutboxRow start = action(OutboxRow.START, "w1");
    List<OutboxRow> batch = new ArrayList<>(List.of(start));
    batch.addAll(starts("w1", 3));
    OutboxRow old = sameTask(start, OutboxRow.REMOVE, 999L);
    OutboxRow again = sameTask(start, OutboxRow.REMOVE, 1L);
    batch.add(action(OutboxRow.REMOVE, "w1"));
    batch.add(old);
    batch.add(again);

    List<List<List<OutboxRow>>> lanes =
        AgentCallPass.lanes(AgentCallPass.callsByWorker(batch).iterator().next());
    List<List<OutboxRow>> withStart =
        lanes.stream().filter(l -> l.stream().anyMatch(c -> c.contains(start))).findFirst().get();
    assertEquals(
        List.of(List.of(old), List.of(again), List.of(start)),
        withStart,
        "both removals of its id, then it alone");
    assertEquals(
        List.of(3),
        lanes.stream()
            .flatMap(List::stream)
            .filter(c -> c.get(0).kind().equals(OutboxRow.START) && !c.contains(start))
            .map(List::size)
            .toList(),
        "the other starts in one call of their own lane");
  }

  /**
   * A delivery of user data is no removal: a start of its task id (a claimed replica resuming) goes
   * with the other starts; the delivery and a discard of one task share a lane, in their order.
   */
  @Test
  void aDeliveryHoldsNoStartBackAndSharesItsTasksLaneWithItsRemoval() {
    OutboxRow start = action(OutboxRow.START, "w1");
    List<OutboxRow> batch = new ArrayList<>(List.of(start));
    batch.addAll(starts("w1", 2));
    OutboxRow delivery = sameTask(start, OutboxRow.DELIVER, 1L);
    OutboxRow other = action(OutboxRow.DELIVER, "w1");
    OutboxRow discard = sameTask(other, OutboxRow.DISCARD, 1L);
    batch.addAll(List.of(delivery, other, discard));

    List<List<List<OutboxRow>>> lanes =
        AgentCallPass.lanes(AgentCallPass.callsByWorker(batch).iterator().next());
    assertEquals(
        List.of(3),
        lanes.stream()
            .flatMap(List::stream)
            .filter(c -> c.get(0).kind().equals(OutboxRow.START))
            .map(List::size)
            .toList(),
        "the three starts in one call, none held back");
    assertEquals(
        List.of(List.of(other), List.of(discard)),
        lanes.stream().filter(l -> l.contains(List.of(other))).findFirst().get(),
        "its delivery, then its removal, in one lane");
  }

  private OutboxRow sameTask(OutboxRow of, String kind, long vmSeq) {
    return new OutboxRow(
        ++ids,
        kind,
        of.worker(),
        of.taskId(),
        of.vm(),
        null,
        Instant.EPOCH,
        0,
        vmSeq,
        null,
        null,
        null,
        null,
        null);
  }
}
