package dev.rota.control;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rota.store.VmPlacementNotes;
import dev.rota.store.VmRow;
import dev.rota.store.VmState;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** When a VM's owed workflow start waits for the burst that places and runs it. */
class StartsInTheBurstTest {
  private static final Instant SUBMITTED = Instant.parse("2026-11-27T06:00:00Z");
  private static final Duration DELAY = Duration.ofSeconds(2);

  private static boolean waits(String status, double secondsAfterSubmission, Duration delay) {
    return waits(status, secondsAfterSubmission, delay, null);
  }

  private static boolean waits(
      String status, double secondsAfterSubmission, Duration delay, String pendingReason) {
    VmState state = new VmState(status, null, null, 0, null, null, null, null, 0, null, null);
    VmPlacementNotes notes =
        new VmPlacementNotes(null, null, pendingReason, null, null, null, false);
    VmRow vm = new VmRow("web-0", 1, SUBMITTED, null, state, notes, null, null, 0);
    return VmWorkflowStarter.inItsBurst(
        vm, false, SUBMITTED.plusMillis((long) (secondsAfterSubmission * 1000)), delay);
  }

  @Test
  void aStartWaitsWhileItsVmIsBeingPlacedAndStarted() {
    assertEquals(true, waits("pending", 2, DELAY), "not placed yet");
    assertEquals(true, waits("scheduled", 4, DELAY), "placed, its task starting");
    assertEquals(true, waits("scheduled", 29.9, DELAY), "within fifteen delays");
  }

  @Test
  void aStartWaitsNotForAVmTheSchedulerCannotPlaceYet() {
    assertEquals(
        false,
        waits("pending", 2, DELAY, "no worker has 4 cpu free"),
        "nothing is under way for it to wait for");
  }

  @Test
  void aStartWaitsNotForAVmWhoseTaskEndedBeforeItsWorkflowRan() {
    VmState state = new VmState("scheduled", null, null, 0, null, null, null, null, 0, null, null);
    VmRow vm = new VmRow("web-0", 1, SUBMITTED, null, state, null, null, null, 0);
    assertEquals(
        false,
        VmWorkflowStarter.inItsBurst(vm, true, SUBMITTED.plusSeconds(2), DELAY),
        "it exited or failed at once: its restart needs the workflow");
  }

  @Test
  void aStartIsMadeOnceItsVmHasAnOutcome() {
    assertEquals(false, waits("running", 2, DELAY), "handed over with the start");
    assertEquals(false, waits("failed", 2, DELAY), "its restart needs the workflow");
    assertEquals(false, waits("stopped", 2, DELAY));
  }

  @Test
  void aStartWaitsNoLongerThanFifteenDelays() {
    assertEquals(false, waits("pending", 30, DELAY), "fifteen delays of 2 s");
    assertEquals(false, waits("scheduled", 7.5, Duration.ofMillis(500)), "fifteen delays of 0.5 s");
    assertEquals(true, waits("pending", 7.4, Duration.ofMillis(500)));
  }
}
