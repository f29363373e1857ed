package dev.rota.store;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Rows the store's tests, here and in the modules above, make again and again. */
public final class StoreFixtures {
  public static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  private StoreFixtures() {}

  public static String unique(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  /** A worker just registered, not yet ready, with 8 cores and 16 GiB, on a loopback agent. */
  public static WorkerRow worker(String name) {
    return WorkerRow.registered(
        name,
        "http://127.0.0.1:9101",
        Map.of("cpu", 8L, "memory", 16384L),
        Map.of("disk", "ssd"),
        List.of("process"),
        "m-" + name,
        "not-ready",
        null,
        T0);
  }

  /** A VM of one {@code sleep} process, stored with the next submission number. */
  public static VmRow vm(VmRepository vms, String name, String status, String worker) {
    return new VmRow(
        name,
        vms.nextSeq(),
        T0,
        VmTemplate.builder("process")
            .command(List.of("sleep", "1"))
            .env(Map.of("A", "b"))
            .resources(Map.of("cpu", 1L))
            .restartPolicy("Never")
            .build(),
        new VmState(status, "why", worker, 0, null, null, null, null, 0, null, null),
        VmPlacementNotes.NONE,
        VmSetMembership.NONE,
        VmReadiness.NONE,
        0);
  }

  /**
   * Submitted {@code at}, asking for {@code cpu} CPUs of one {@code sleep} process, and saved:
   * pending.
   */
  public static VmRow submitted(VmRepository vms, String name, long cpu, Instant at) {
    return vms.save(VmRow.submitted(name, vms.nextSeq(), sleeper(cpu), "waiting", at));
  }

  /** The spec of one {@code sleep} process asking for {@code cpu} CPUs, never restarted. */
  public static VmTemplate sleeper(long cpu) {
    return VmTemplate.builder("process")
        .command(List.of("sleep", "60"))
        .resources(Map.of("cpu", cpu))
        .restartPolicy("Never")
        .build();
  }

  /**
   * The spec of a {@code process} VM running {@code command} with {@code resources}, restarted as
   * {@code restartPolicy} says, at {@code priority}, its worker's labels meeting {@code
   * constraints}.
   */
  public static VmTemplate spec(
      List<String> command,
      Map<String, Long> resources,
      String restartPolicy,
      int priority,
      List<dev.rota.core.model.LabelConstraint> constraints) {
    return VmTemplate.builder("process")
        .command(command)
        .resources(resources)
        .restartPolicy(restartPolicy)
        .priority(priority)
        .constraints(constraints)
        .build();
  }

  /**
   * A {@code qemu} VM's spec, booted from an image with 1 CPU and no restart policy: its root disk
   * {@code persistent} or not, mounting {@code volumes}, moving as {@code migration} says (null:
   * restarted where it goes).
   */
  public static VmTemplate qemu(boolean persistent, List<VolumeMount> volumes, String migration) {
    return VmTemplate.builder("qemu")
        .image("file:///d.qcow2")
        .resources(Map.of("cpu", 1L))
        .restartPolicy("Never")
        .persistentDisk(persistent)
        .volumes(volumes)
        .migration(migration)
        .build();
  }
}
