package dev.rota.core.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.core.model.LeaseEnd;
import dev.rota.core.model.VmStatus;
import dev.rota.core.model.WireName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A VM's lease as a table: when it begins, when it runs out, and when it may be extended. */
class LeaseTest {
  private static final Lease HOUR = Lease.of(3600, "stop", 0);

  private static VmLife life(String status, long startedAtMillis, long restartAtMillis) {
    return new VmLife(
        WireName.parse(VmStatus.class, status).orElseThrow(),
        "w1",
        0,
        null,
        null,
        0,
        0,
        startedAtMillis,
        0,
        null,
        null,
        restartAtMillis);
  }

  @ParameterizedTest(name = "{0}, task started at {1}, heard at {2}: ends at {3}")
  @CsvSource(
      textBlock =
          """
          # status    started  now     ends at (0: not begun)
          pending,    0,       5000,   0
          scheduled,  0,       5000,   0
          running,    2000,    5000,   3602000
          running,    0,       5000,   3605000
          failed,     2000,    5000,   0
          stopped,    2000,    5000,   0
          """)
  void itBeginsWhenTheVmIsFirstSeenRunning(String status, long started, long now, long endsAt) {
    assertEquals(endsAt, HOUR.heard(life(status, started, 0), now).endsAtMillis());
  }

  @Test
  void aBegunLeaseIsNotBegunAgainByALaterRun() {
    Lease begun = HOUR.heard(life("running", 1000, 0), 1000);
    assertSame(begun, begun.heard(life("running", 900_000, 0), 900_000));
  }

  @Test
  void aVmWithoutALeaseNeverRunsOut() {
    Lease none = Lease.of(null, "delete", 0);
    assertSame(Lease.NONE, none);
    assertFalse(none.heard(life("running", 1, 0), 1).begun());
    assertFalse(none.runsOutBy(Long.MAX_VALUE, life("running", 1, 0)));
  }

  @ParameterizedTest(name = "{0} (restart due {1}) at {2}: runs out {3}")
  @CsvSource(
      textBlock =
          """
          # status    restart due  now       runs out
          running,    0,           3600999,  false
          running,    0,           3601000,  true
          pending,    0,           3601000,  true
          scheduled,  0,           3601000,  true
          stopping,   0,           3601000,  true
          failed,     9000000,     3601000,  true
          failed,     0,           3601000,  false
          stopped,    0,           3601000,  false
          suspending, 0,           3601000,  false
          suspended,  0,           3601000,  false
          paused,     0,           3601000,  true
          """)
  void itRunsOutOnlyForAVmNotYetFinished(String status, long restartAt, long now, boolean runsOut) {
    Lease begun = HOUR.heard(life("running", 1000, 0), 1000);
    assertEquals(runsOut, begun.runsOutBy(now, life(status, 1000, restartAt)));
  }

  @ParameterizedTest(name = "{0}, begun {1}: {2}")
  @CsvSource(
      textBlock =
          """
          # status   begun  refusal (empty: extended)
          running,   true,
          pending,   true,
          scheduled, true,
          running,   false, its lease begins when it first runs
          pending,   false, its lease begins when it first runs
          stopping,  true,  it is stopping; a start begins a new lease
          stopped,   true,  it is stopped; a start begins a new lease
          failed,    true,  it is failed; a start begins a new lease
          suspended, true,  it is suspended; a start begins a new lease
          """)
  void anExtensionIsTakenOnlyByALeaseUnderWay(String status, boolean begun, String refusal) {
    Lease lease = begun ? HOUR.heard(life("running", 1000, 0), 1000) : HOUR;
    assertEquals(refusal, lease.refusesExtension(life(status, 1000, 0)));
  }

  @Test
  void aVmWithoutALeaseHasNoneToExtend() {
    assertEquals(
        "it has no lease (maxRunDuration)", Lease.NONE.refusesExtension(life("running", 1, 0)));
  }

  @Test
  void anExtensionMovesTheEndAndAStartBeginsANewLease() {
    Lease begun = HOUR.heard(life("running", 1000, 0), 1000);
    Lease extended = begun.extendedBy(1800);
    assertEquals(3601000 + 1_800_000, extended.endsAtMillis());
    assertNull(extended.refusesExtension(life("running", 1000, 0)));
    Lease renewed = extended.renewed();
    assertFalse(renewed.begun());
    assertEquals(
        7_200_000 + 3_600_000, renewed.heard(life("running", 7_200_000, 0), 0).endsAtMillis());
  }

  @Test
  void whatItDoesAtItsEndIsReadFromTheStoreWithStopForAnythingUnknown() {
    assertEquals(LeaseEnd.DELETE, Lease.of(60, "delete", 0).onExpiry());
    assertEquals(LeaseEnd.STOP, Lease.of(60, null, 0).onExpiry());
    assertTrue(Lease.of(60, "stop", 5).begun());
  }
}
