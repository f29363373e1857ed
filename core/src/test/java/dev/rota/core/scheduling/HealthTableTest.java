package dev.rota.core.scheduling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.core.model.WorkerHealth;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HealthTableTest {
  @Test
  void everyCellHasARule() {
    for (HealthTable.Cell cell : HealthTable.allCells()) {
      assertTrue(HealthTable.lookup(cell).isPresent(), "no rule for " + cell);
    }
    assertEquals(5 * 4 * 5 * 2, HealthTable.allCells().size());
  }

  @Test
  void everyRuleDecidesSomeCell() {
    Set<HealthTable.Row> used = new HashSet<>();
    HealthTable.allCells().forEach(c -> used.add(HealthTable.lookup(c).orElseThrow()));
    for (HealthTable.Row row : HealthTable.ROWS) {
      assertTrue(used.contains(row), "a rule shadowed by the ones above it: " + row);
    }
  }

  @Test
  void onlyAFreshHeartbeatKeepsAWorkerInService() {
    for (HealthTable.Cell cell : HealthTable.allCells()) {
      WorkerHealth next = HealthTable.lookup(cell).orElseThrow().next();
      switch (cell.heartbeat()) {
        case GONE -> assertEquals(WorkerHealth.OFFLINE, next, cell.toString());
        case STALE -> assertEquals(WorkerHealth.LOST, next, cell.toString());
        case FRESH ->
            assertFalse(next == WorkerHealth.LOST || next == WorkerHealth.OFFLINE, cell.toString());
      }
    }
  }
}
