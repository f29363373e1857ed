package dev.rota.control;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SubmissionPaceTest {
  private final SubmissionPace pace = new SubmissionPace();

  @Test
  void aTrickleOfSubmissionsDoesNotOutpaceStarts() {
    for (long ms = 0; ms < 10_000; ms += 100) {
      pace.submitted(1, ms); // ten a second
    }
    assertFalse(pace.outpacingStarts(10_000));
  }

  @Test
  void aBurstOfSingleSubmissionsOutpacesStartsWhileItLasts() {
    for (long ms = 0; ms < 3_000; ms += 2) {
      pace.submitted(1, ms); // five hundred a second
    }
    assertTrue(pace.outpacingStarts(2_999));
    assertTrue(pace.outpacingStarts(3_500), "the second before still counts");
    assertFalse(pace.outpacingStarts(4_000), "two seconds on, the burst is over");
  }

  @Test
  void aSetsReplicasStoredTogetherCountAsTheirNumber() {
    pace.submitted(1_000, 10_000);
    assertTrue(pace.outpacingStarts(10_001));
    assertFalse(pace.outpacingStarts(12_000), "a start made after the delay finds the burst over");
  }

  @Test
  void aQuietWhileForgetsWhatCameBefore() {
    pace.submitted(SubmissionPace.OUTPACING, 0);
    pace.submitted(1, 5_000);
    assertFalse(pace.outpacingStarts(5_001));
  }

  @Test
  void outpacingIsMoreThanTheLimit() {
    pace.submitted(SubmissionPace.OUTPACING, 0);
    assertFalse(pace.outpacingStarts(999));
    pace.submitted(1, 999);
    assertTrue(pace.outpacingStarts(999));
  }
}
