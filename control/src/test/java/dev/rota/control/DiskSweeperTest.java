package dev.rota.control;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rota.agentapi.HeldDisk;
import dev.rota.store.VmPlacementNotes;
import dev.rota.store.VmRow;
import dev.rota.store.VmState;
import dev.rota.store.VmTemplate;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which of a worker's disks no VM has: those, and only those, are deleted. */
class DiskSweeperTest {
  private static VmRow vm(
      long seq,
      boolean persistent,
      String diskOn,
      boolean memorySaved,
      String status,
      String diskFrom) {
    VmTemplate spec = dev.rota.store.StoreFixtures.qemu(persistent, java.util.List.of(), null);
    return new VmRow(
        "dev",
        seq,
        Instant.EPOCH,
        spec,
        new VmState(status, null, "w1", 0, null, null, null, null, 0, null, null),
        new VmPlacementNotes(
            null, null, null, null, null, null, false, diskOn, memorySaved, diskFrom, null),
        null,
        null,
        0);
  }

  @ParameterizedTest(name = "{0}: deleted {4}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          its VM, its disk here              | 7 | true  | w1 | false | running    |    | false
          its VM, not yet placed             | 7 | true  |    | false | pending    |    | false
          no such VM                         |   | false |    | false |            |    | true
          the name submitted again           | 8 | true  | w1 | false | running    |    | true
          its VM's disk on w2                | 7 | true  | w2 | false | running    |    | true
          its VM's disk not persistent       | 7 | false |    | false | running    |    | true
          its VM's memory saved here         | 7 | false | w1 | true  | suspended  |    | false
          its VM's memory saved on w2        | 7 | false | w2 | true  | suspended  |    | true
          its VM's memory being saved here   | 7 | false |    | false | suspending |    | false
          its VM's memory resumed from       | 7 | false |    | false | running    |    | true
          its VM's disk being copied from    | 7 | true  | w2 | false | pending    | w1 | false
          its VM's disk copied from w3       | 7 | true  | w2 | false | running    | w3 | true
          """)
  void aDiskIsAnOrphanWhenNoVmHasItHere(
      String what,
      Long seq,
      boolean persistent,
      String diskOn,
      boolean memorySaved,
      String status,
      String diskFrom,
      boolean deleted) {
    HeldDisk held = new HeldDisk("dev-7", "file:///d.qcow2", 1024);
    Optional<VmRow> row =
        seq == null
            ? Optional.empty()
            : Optional.of(vm(seq, persistent, diskOn, memorySaved, status, diskFrom));
    assertEquals(
        deleted ? List.of(held) : List.of(),
        DiskSweeper.orphans(
            "w1",
            List.of(held),
            name -> name.equals("dev") ? row : Optional.empty(),
            name -> Optional.empty()),
        what);
  }

  @ParameterizedTest(name = "{0}: deleted {5}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          held here, no VM mounts it              | 3 | w1 |     |    | false
          not made anywhere yet                   | 3 |    |     |    | false
          held on w2                              | 3 | w2 |     |    | true
          deleted                                 |   |    |     |    | true
          made again under its name               | 4 | w1 |     |    | true
          its VM's disk here                      | 3 | w1 | dev |    | false
          its VM moved with it to w2, copied here | 3 | w2 | dev | w3 | true
          its VM's next task copies it from here  | 3 | w2 | dev | w1 | false
          """)
  void aVolumeIsAnOrphanWhenItIsGoneOrHeldElsewhere(
      String what, Long seq, String heldOn, String mountedBy, String diskFrom, boolean deleted) {
    HeldDisk held = new HeldDisk("cache-v3", null, 1024);
    Optional<dev.rota.store.VolumeRow> volume =
        seq == null
            ? Optional.empty()
            : Optional.of(
                new dev.rota.store.VolumeRow("cache", seq, 1, heldOn, mountedBy, Instant.EPOCH));
    Optional<VmRow> vm = Optional.of(vm(7, true, heldOn, false, "running", diskFrom));
    assertEquals(
        deleted ? List.of(held) : List.of(),
        DiskSweeper.orphans(
            "w1",
            List.of(held),
            name -> name.equals("dev") ? vm : Optional.empty(),
            name -> name.equals("cache") ? volume : Optional.empty()),
        what);
  }
}
