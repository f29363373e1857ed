package dev.rota.core.scheduling;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rota.core.scheduling.ActionRetries.Kind;
import dev.rota.core.scheduling.ActionRetries.Next;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The rules the apply step follows, as a table: every action kind. */
class ActionRetriesTest {
  @ParameterizedTest(name = "{0} refused={1} tried before={2} -> {3}")
  @CsvSource(
      textBlock =
          """
      START,   true,   0,  FAIL_TASK
      START,   false,  0,  RETRY
      START,   false,  3,  RETRY
      START,   false,  4,  GIVE_BACK
      REMOVE,  true,   0,  DROP
      REMOVE,  false,  18, RETRY
      REMOVE,  false,  19, DROP
      DELIVER, true,   0,  DROP
      DELIVER, false,  0,  RETRY
      DELIVER, false,  1000, RETRY
      NOTIFY,  false,  0,  RETRY
      NOTIFY,  false,  1000, RETRY
      """)
  void aFailedActionIsRetriedOrGivenUpAsItsKindAllows(
      Kind kind, boolean refused, int before, Next next) {
    assertEquals(next, ActionRetries.afterFailure(kind, refused, before, Duration.ofMinutes(9)));
  }

  /** User data waits for its guest ten minutes, however often it was tried meanwhile. */
  @ParameterizedTest(name = "{0} refused={1} after {2} -> {3}")
  @CsvSource(
      textBlock =
          """
      DELIVER, false, PT9M59S, RETRY
      DELIVER, false, PT10M,   DROP
      DELIVER, true,  PT1S,    DROP
      REMOVE,  false, PT1H,    RETRY
      """)
  void userDataWaitsForItsGuestInTimeNotTries(Kind kind, boolean refused, Duration age, Next next) {
    assertEquals(next, ActionRetries.afterFailure(kind, refused, 0, age));
  }
}
