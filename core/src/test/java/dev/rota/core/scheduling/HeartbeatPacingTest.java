package dev.rota.core.scheduling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HeartbeatPacingTest {
  @ParameterizedTest(name = "{0} workers, at most {1}/s, lost after {2} s: every {3} ms")
  @CsvSource(
      textBlock =
          """
          0,    50, 30, 0
          10,   50, 30, 200
          250,  50, 30, 5000
          500,  50, 30, 10000
          1000, 50, 30, 10000
          1000, 50, 90, 20000
          1000, 300, 90, 3334
          3,    2,  30, 1500
          """)
  void theFleetBeatsAtMostSoOftenAndAWorkerStillMissesThreeBeatsBeforeItIsLost(
      long workers, int maxPerSecond, long lostAfterSeconds, long expectedMillis) {
    HeartbeatPacing pacing =
        new HeartbeatPacing(maxPerSecond, Duration.ofSeconds(lostAfterSeconds));
    assertEquals(Duration.ofMillis(expectedMillis), pacing.interval(workers));
  }

  @org.junit.jupiter.api.Test
  void aRateOfNoneIsRefused() {
    assertThrows(
        IllegalArgumentException.class, () -> new HeartbeatPacing(0, Duration.ofSeconds(30)));
  }
}
