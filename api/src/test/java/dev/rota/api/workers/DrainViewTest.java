package dev.rota.api.workers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.rota.store.WorkerRow;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DrainViewTest {
  private static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");

  private static WorkerRow draining(String progress) {
    return new WorkerRow(
        "w1",
        "http://127.0.0.1:9101",
        Map.of("cpu", 4L),
        Map.of(),
        List.of("process"),
        null,
        true,
        "ready",
        null,
        T0,
        T0,
        null,
        false,
        0,
        null,
        null,
        null,
        null,
        T0.plusSeconds(3600),
        T0,
        progress,
        List.of(),
        null,
        1);
  }

  @Test
  void theSchedulersLineIsShownWhileVmsAreLeftAndNotOnceNoneIs() {
    String line = "1 VM left: moving web-1 to w2";
    assertEquals("draining", DrainView.of(draining(line), 1).state());
    assertEquals(line, DrainView.of(draining(line), 1).progress());
    DrainView drained = DrainView.of(draining(line), 0);
    assertEquals("drained", drained.state());
    assertEquals("drained: no VMs left", drained.progress(), "the last line was written with a VM");
    assertNull(DrainView.of(draining(null), 1).progress(), "no term since the drain began");
  }
}
