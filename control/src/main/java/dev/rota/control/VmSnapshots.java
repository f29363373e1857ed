package dev.rota.control;

import dev.rota.agentapi.AgentRejectedException;
import dev.rota.agentapi.DiskSnapshot;
import dev.rota.scheduler.agents.AgentClient;
import dev.rota.store.VmEventRepository;
import dev.rota.store.VmRepository;
import dev.rota.store.VmRow;
import dev.rota.store.WorkerRepository;
import dev.rota.store.WorkerRow;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A VM's persistent disk, at rest, saved as an image in an OCI registry by the agent that holds it
 * ({@code POST /v1/disks/{id}/snapshot}); new VMs and sets start from it. The worker keeps the
 * image in its cache too, so the scheduler's image affinity places them there first. A suspended
 * VM's saved memory may go with it: VMs started from the image then go on from where that guest was
 * instead of booting.
 */
@Singleton
public class VmSnapshots {
  private static final Logger log = LoggerFactory.getLogger(VmSnapshots.class);

  /** How long the disk's agent may take to flatten and push it: a large disk takes a while. */
  static final Duration TAKES_AT_MOST = Duration.ofMinutes(30);

  /** The statuses of a VM whose disk no task runs from. */
  private static final Set<String> AT_REST = Set.of("stopped", "suspended", "failed");

  /** What a snapshot made, and the worker whose cache holds it. */
  public record Taken(DiskSnapshot made, String worker) {}

  private final VmRepository vms;
  private final WorkerRepository workers;
  private final VmEventRepository events;
  private final AgentClient agents;
  private final Clock clock;

  public VmSnapshots(
      VmRepository vms,
      WorkerRepository workers,
      VmEventRepository events,
      AgentClient agents,
      Clock clock) {
    this.vms = vms;
    this.workers = workers;
    this.events = events;
    this.agents = agents;
    this.clock = clock;
  }

  /**
   * Saves VM {@code name}'s disk as {@code image} (an {@code oci://} reference with a tag), with
   * its saved memory when {@code memory}; returns once it is pushed, with a {@code snapshot} event
   * in the VM's log.
   *
   * @throws NotFound for no such VM
   * @throws Refused for a VM without a disk at rest, or a disk its worker cannot read now; with
   *     {@code memory}, for a VM that is not suspended or that mounts volumes
   * @throws RefusedElsewhere when the registry refuses the push
   * @throws NotAnswered when the disk's agent does not answer
   */
  public Taken snapshot(String name, String image, boolean memory) {
    VmRow vm = vms.findById(name).orElseThrow(() -> new NotFound("VM", name));
    if (!"qemu".equals(vm.spec().runtime()) || !vm.spec().persistentDisk()) {
      throw new Refused(
          "VM " + name + " keeps no disk to snapshot: only a qemu VM with a persistent disk does");
    }
    String on = vm.notes().diskOn();
    if (on == null) {
      throw new Refused("VM " + name + " has no disk yet: it is made when it first runs");
    }
    if (!AT_REST.contains(vm.state().status())) {
      throw new Refused(
          "VM "
              + name
              + " is "
              + vm.state().status()
              + ": stop or suspend it first, a snapshot is of a disk at rest");
    }
    if (memory && !vm.state().isSuspended()) {
      throw new Refused(
          "VM "
              + name
              + " is "
              + vm.state().status()
              + ": only a suspended VM's memory can go with its disk, suspend it first");
    }
    if (memory && !vm.spec().volumes().isEmpty()) {
      throw new Refused(
          "VM "
              + name
              + " mounts volumes: its memory holds their state, which a snapshot does not carry");
    }
    WorkerRow worker =
        workers
            .findById(on)
            .orElseThrow(() -> new Refused("the worker that held VM " + name + "'s disk is gone"));
    DiskSnapshot made;
    try {
      made = agents.snapshotDisk(worker.agent(), vm.diskId(), image, memory, TAKES_AT_MOST);
    } catch (AgentRejectedException e) {
      if (e.status() == 502) {
        throw new RefusedElsewhere("the image could not be pushed: " + e.getMessage());
      }
      throw new Refused("worker " + on + " could not snapshot it: " + e.getMessage());
    } catch (RuntimeException e) {
      throw new NotAnswered("worker " + on + " did not answer: " + e.getMessage());
    }
    events.append(
        name,
        clock.instant(),
        "snapshot",
        (memory ? "disk and memory" : "disk")
            + " saved as image "
            + made.image()
            + " ("
            + made.digest()
            + ") on "
            + on);
    log.info("VM {} snapshotted as {} ({})", name, made.image(), made.digest());
    return new Taken(made, on);
  }
}
