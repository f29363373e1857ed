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
    return v.toBuilder().persistentDisk(true).diskOn(diskOn).liveMigration(live).build();
  }

  /** {@code v} as claimed from a pool: its tasks carry the replica's name, {@code taskName}. */
  static VmSnapshot claimedAs(VmSnapshot v, String taskName) {
    return v.toBuilder().taskName(taskName).build();
  }

  /** {@code v} at {@code priority}. */
  static VmSnapshot atPriority(VmSnapshot v, int priority) {
    return v.toBuilder().priority(priority).build();
  }

  /** {@code v} with its current task evicted by an earlier term. */
  static VmSnapshot evicted(VmSnapshot v) {
    return v.toBuilder().evicted(true).build();
  }
}
