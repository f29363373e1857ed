package dev.rota.core.scheduling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.core.scheduling.ReconcileTable.Action;
import dev.rota.core.scheduling.ReconcileTable.Cell;
import dev.rota.core.scheduling.ReconcileTable.Record;
import dev.rota.core.scheduling.ReconcileTable.Seen;
import dev.rota.core.scheduling.ReconcileTable.Want;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ReconcileTableTest {
  @Test
  void everyCellHasARule() {
    for (Cell cell : ReconcileTable.allCells()) {
      assertTrue(ReconcileTable.lookup(cell).isPresent(), "no rule for " + cell);
    }
    assertEquals(3 * 4 * 6, ReconcileTable.allCells().size());
  }

  @Test
  void everyRuleDecidesSomeCell() {
    Set<ReconcileTable.Row> used = new HashSet<>();
    ReconcileTable.allCells().forEach(c -> used.add(ReconcileTable.decide(c)));
    for (ReconcileTable.Row row : ReconcileTable.ROWS) {
      assertTrue(used.contains(row), "a rule shadowed by the ones above it: " + row);
    }
  }

  @Test
  void theTableKeepsItsPromises() {
    for (Cell cell : ReconcileTable.allCells()) {
      Action action = ReconcileTable.decide(cell).action();
      if (cell.seen() == Seen.UNKNOWN) {
        assertEquals(Action.NOTHING, action, "an agent that did not answer tells nothing: " + cell);
      }
      if (cell.want() == Want.WANTED && cell.record() != Record.NONE) {
        assertTrue(
            !EnumSet.of(Action.REMOVE, Action.FORGET).contains(action),
            "a wanted task is kept: " + cell);
      } else {
        assertTrue(
            EnumSet.of(Action.NOTHING, Action.REMOVE, Action.FORGET).contains(action),
            "nothing about a task nobody wants reaches a workflow: " + cell);
      }
      if (cell.record() == Record.ENDED || cell.record() == Record.NONE) {
        assertTrue(
            EnumSet.of(Action.NOTHING, Action.REMOVE, Action.FORGET).contains(action),
            "a task's end is told once, and only a placed task's: " + cell);
      }
      if (cell.want() == Want.KEPT
          && EnumSet.of(Seen.STARTING, Seen.RUNNING).contains(cell.seen())
          && cell.record() != Record.NONE) {
        assertEquals(
            Action.NOTHING,
            action,
            "a moving VM's old copy runs on until its new one has started: " + cell);
      }
      boolean listed = EnumSet.of(Seen.STARTING, Seen.RUNNING, Seen.ENDED).contains(cell.seen());
      if (action == Action.REMOVE) {
        assertTrue(listed, "only what an agent lists is removed from it: " + cell);
      }
      if (action == Action.FORGET) {
        assertTrue(
            !listed && cell.seen() != Seen.UNKNOWN,
            "a record is forgotten only once its task is gone: " + cell);
      }
    }
  }
}
