package dev.rota.core.scheduling;

import dev.rota.core.model.WorkerHealth;
import java.util.List;
import java.util.Map;

/** Small builders that keep the tests' tables readable. */
final class Fixtures {
  private Fixtures() {}

  static Candidate ready(String name, long cpu) {
    return new Candidate(
        name,
        Map.of("cpu", cpu, "memory", 16384L),
        Map.of(),
        List.of("process"),
        WorkerHealth.READY,
        false);
  }

  static Candidate withLabels(Candidate c, Map<String, String> labels) {
    return new Candidate(c.name(), c.capacity(), labels, c.runtimes(), c.health(), c.paused());
  }

  static Candidate paused(Candidate c) {
    return new Candidate(c.name(), c.capacity(), c.labels(), c.runtimes(), c.health(), true);
  }

  static Candidate health(Candidate c, WorkerHealth h) {
    return new Candidate(c.name(), c.capacity(), c.labels(), c.runtimes(), h, c.paused());
  }

  static PendingVm vm(String name, long seq, long cpu) {
    return PendingVm.builder(name, seq, "process", Map.of("cpu", cpu, "memory", 512L)).build();
  }

  static PendingVm vm(String name, long seq, long cpu, Map<String, String> labels) {
    return PendingVm.builder(name, seq, "process", Map.of("cpu", cpu, "memory", 512L))
        .labels(labels)
        .build();
  }

  static Holding holding(String worker, long cpu) {
    return new Holding(worker, Map.of("cpu", cpu, "memory", 512L));
  }

  /**
   * {@code v} with a persistent disk on {@code diskOn}, moving live or not: a {@code qemu} VM's,
   * whatever runtime the fixture's workers run.
   */
  static VmSnapshot withDisk(VmSnapshot v, String diskOn, boolean live) {
    return copy(v, true, diskOn, live, v.taskName(), v.priority(), v.evicted());
  }

  /** {@code v} as claimed from a pool: its tasks carry the replica's name, {@code taskName}. */
  static VmSnapshot claimedAs(VmSnapshot v, String taskName) {
    return copy(
        v, v.persistentDisk(), v.diskOn(), v.liveMigration(), taskName, v.priority(), v.evicted());
  }

  /** {@code v} at {@code priority}. */
  static VmSnapshot atPriority(VmSnapshot v, int priority) {
    return copy(
        v, v.persistentDisk(), v.diskOn(), v.liveMigration(), v.taskName(), priority, v.evicted());
  }

  /** {@code v} with its current task evicted by an earlier term. */
  static VmSnapshot evicted(VmSnapshot v) {
    return copy(
        v, v.persistentDisk(), v.diskOn(), v.liveMigration(), v.taskName(), v.priority(), true);
  }

  private static VmSnapshot copy(
      VmSnapshot v,
      boolean persistentDisk,
      String diskOn,
      boolean live,
      String taskName,
      int priority,
      boolean evicted) {
    return VmSnapshot.builder(v.name(), v.seq(), v.runtime(), v.request())
        .labels(v.labels())
        .status(v.status())
        .restartCount(v.restartCount())
        .avoidWorker(v.avoidWorker())
        .set(v.set())
        .spread(v.spread())
        .failedOn(v.failedOn())
        .movingFrom(v.movingFrom())
        .image(v.image())
        .restartPolicy(v.restartPolicy())
        .oldCopyOn(v.oldCopyOn())
        .keepsThroughDisconnect(v.keepsThroughDisconnect())
        .awaitingReadiness(v.awaitingReadiness())
        .persistentDisk(persistentDisk)
        .diskOn(diskOn)
        .liveMigration(live)
        .taskName(taskName)
        .priority(priority)
        .evicted(evicted)
        .build();
  }
}
