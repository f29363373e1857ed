package dev.rota.control;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rota.scheduler.settings.SchedulerSettings;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * When the scheduler is degraded: no term for longer than a working one waits (30 s idle + 3 × 5 s
 * = 45 s here).
 */
class SchedulerHealthTest {
  private static final SchedulerSettings SETTINGS =
      new SchedulerSettings(Duration.ofSeconds(5), Duration.ofSeconds(30), 1000, Duration.ZERO);
  private static final Instant NOW = Instant.parse("2026-11-26T12:00:00Z");

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          a term just now                 | 1   | 600 | false | ok       | last term 1 s ago
          idle, within its longest wait   | 44  | 600 | false | ok       | last term 44 s ago
          no term past its longest wait   | 46  | 600 | false | degraded | no term for 46 s, when one comes at least every 30 s
          started again by this host      | 46  | 600 | true  | degraded | no term for 46 s, when one comes at least every 30 s; at 2026-11-26T11:59:50Z started again
          a new host, first term to come  |     | 10  | false | ok       | waiting for the first term
          no first term for too long      |     | 50  | false | degraded | no term yet, 50 s after this host started
          """)
  void judged(
      String why,
      Long quietSeconds,
      long upSeconds,
      boolean restarted,
      String state,
      String message) {
    SchedulerHealth health =
        SchedulerHealth.judge(
            quietSeconds == null ? null : NOW.minusSeconds(quietSeconds),
            NOW.minusSeconds(upSeconds),
            restarted ? NOW.minusSeconds(10) : null,
            restarted ? "started again" : null,
            SETTINGS,
            NOW);
    assertEquals(state, health.state(), why);
    assertEquals(message, health.message(), why);
  }
}
