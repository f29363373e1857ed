package dev.rota.agent.runtimes;

import dev.rota.agent.images.ImageCache;
import dev.rota.agent.machine.Tools;
import dev.rota.agent.tasks.CappedLog;
import dev.rota.agent.tasks.Conduit;
import dev.rota.agent.tasks.Execution;
import dev.rota.agent.tasks.Refusal;
import dev.rota.agent.tasks.Supervisor;
import dev.rota.agent.tasks.Task;
import dev.rota.agent.tasks.TaskRuntime;
import dev.rota.agentapi.GuestSpec;
import dev.rota.agentapi.TaskView;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The {@code qemu} runtime: each task is a virtual machine, booted by QEMU with the VM's {@code
 * cpu} as vCPUs and {@code memory} (MiB) as its RAM, from its image (the boot disk: a copy-on-write
 * overlay of the cached image, removed with the task) or from a kernel given directly. Its serial
 * console is its log. Stopping it presses its ACPI power button and kills it after the grace. How
 * it ends:
 *
 * <ul>
 *   <li>the guest powers off: exited, code 0;
 *   <li>the guest writes a status N (1 to 63) to I/O port 0xf4 (QEMU's isa-debug-exit): exited,
 *       code N;
 *   <li>the guest kernel panics (reported through the pvpanic device): failed;
 *   <li>the firmware finds nothing to boot, QEMU cannot start or dies: failed, saying so.
 * </ul>
 *
 * QEMU outlives the agent like any task's process ({@link Supervisor}): an agent started again
 * adopts it. A running VM whose disk outlives its task (or that has none) can be suspended: its
 * memory is saved on the worker ({@link SavedMemory}, {@link PersistentDisks}) and its QEMU ends;
 * its VM's next task resumes from it, once, instead of booting.
 */
public final class QemuRuntime implements TaskRuntime {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(QemuRuntime.class);

  /** What the firmware prints when the disk does not boot; QEMU then waits for ever. */
  private static final List<String> BOOT_FAILURES = List.of("No bootable device");

  /**
   * How often the power button is pressed again while a stopped guest has not powered off (it may
   * have been booting).
   */
  private static final Duration PRESS_AGAIN = Duration.ofSeconds(5);

  private static final Duration BOOT_WATCH = Duration.ofMinutes(2);
  private static final Duration CONSOLE_CHECK = Duration.ofSeconds(5);
  private static final Duration QMP_DEADLINE = Duration.ofSeconds(3);

  private final Supervisor supervisor;
  private final ImageCache images;
  private final java.util.concurrent.CompletableFuture<QemuHost> hostFound;
  private final Qmp qmp;
  private final ExecutorService starts;
  private final ScheduledExecutorService timers;

  /** Where a VM's forwarded ports listen on the worker: where the task API listens. */
  private final String forwardHost;

  /** The tasks whose console a user is attached to. */
  private final java.util.Set<String> attached = java.util.concurrent.ConcurrentHashMap.newKeySet();

  private final GuestAgent guestAgent = new GuestAgent();

  /** How each guest's QEMU is held: its user, control group and network rules. */
  private final GuestConfinement confinement;

  private final PersistentDisks disks;

  private final SavedMemory memory;

  private final QemuMoves moves;

  /** The tasks being suspended: one suspend at a time each. */
  private final java.util.Set<String> suspending =
      java.util.concurrent.ConcurrentHashMap.newKeySet();

  public QemuRuntime(
      Supervisor supervisor,
      ImageCache images,
      java.util.concurrent.CompletableFuture<QemuHost> host,
      ExecutorService starts,
      ScheduledExecutorService timers,
      String forwardHost,
      GuestConfinement confinement,
      PersistentDisks disks,
      java.util.concurrent.CompletableFuture<AgentSelf> self) {
    this.confinement = confinement;
    this.disks = disks;
    this.forwardHost = forwardHost;
    this.supervisor = supervisor;
    this.images = images;
    this.hostFound = host;
    this.qmp = new Qmp(timers);
    this.memory = new SavedMemory(qmp, timers);
    this.moves = new QemuMoves(qmp, self);
    this.starts = starts;
    this.timers = timers;
  }

  @Override
  public void start(Task task) {
    GuestSpec guest = task.spec.guest() == null ? GuestSpec.NONE : task.spec.guest();
    if (blank(task.spec.image()) && blank(guest.kernel())) {
      task.failed("a qemu VM needs an image (its boot disk) or a kernel to boot", Instant.now());
      return;
    }
    if (blank(guest.kernel()) && (!blank(guest.initrd()) || !blank(guest.kernelArgs()))) {
      task.failed("an initrd or kernel arguments need a kernel to boot directly", Instant.now());
      return;
    }
    // The longest of the VM's sockets' paths (QMP, console, guest agent, a move's relays).
    Path socket = GuestFiles.console(supervisor.folder(task.id));
    if (socket.toString().length() > Qmp.MAX_SOCKET_PATH) {
      task.failed(
          "the agent's data folder is too deep for QEMU's control socket ("
              + socket
              + " is over "
              + Qmp.MAX_SOCKET_PATH
              + " bytes): set ROTA_AGENT_DATA_DIR to a shorter path",
          Instant.now());
      return;
    }
    if (task.spec.arrives()) {
      moves.expect(task);
    }
    // Fetching an image and making disks takes a while: the controller's call is answered at once,
    // the task starting, and its progress is its message.
    starts.execute(() -> boot(task, guest));
  }

  private void boot(Task task, GuestSpec guest) {
    List<ImageCache.Lease> leases = new ArrayList<>();
    try {
      if (task.isRemoved()) {
        return;
      }
      Path dir = supervisor.prepare(task);
      Path saved = savedMemory(task);
      Consumer<String> progress = task::progress;
      ImageCache.Lease disk =
          blank(task.spec.image()) ? null : lease(leases, task.spec.image(), progress);
      ImageCache.Lease kernel =
          blank(guest.kernel()) ? null : lease(leases, guest.kernel(), progress);
      ImageCache.Lease initrd =
          blank(guest.initrd()) ? null : lease(leases, guest.initrd(), progress);
      Files.write(
          dir.resolve("images"),
          leases.stream().map(ImageCache.Lease::sha256).toList(),
          StandardCharsets.UTF_8);
      task.progress("making the VM's disk");
      QemuHost host = hostFound.join();
      long memory = memoryMib(task);
      Integer uid =
          confinement.confine(
              task.id,
              dir,
              task.spec.network(),
              cpus(task),
              GuestConfinement.memoryLimitMib(memory, host.accel().equals("tcg")));
      RootDisk rootDisk = disk == null ? null : rootDisk(task, dir, host, disk, uid);
      List<Mounted> volumes = volumes(task, host, uid);
      boolean ownMemory = saved != null;
      if (saved == null
          && !task.spec.arrives()
          && rootDisk != null
          && rootDisk.fresh()
          && disk.memory() != null) {
        saved = imageMemory(task, guest, volumes, disk);
      }
      List<String> argv =
          command(
              task,
              dir,
              host,
              rootDisk == null ? null : rootDisk.file(),
              volumes,
              kernel,
              initrd,
              guest,
              uid);
      if (saved != null) {
        argv.addAll(List.of("-incoming", "unix:" + here(dir, GuestFiles.incoming(dir))));
      } else if (task.spec.arrives()) {
        argv.addAll(List.of("-incoming", "defer"));
      }
      if (uid != null) {
        argv = confinement.wrap(task.id, uid, host.devicesGroup(), argv);
      }
      synchronized (task) {
        if (task.isRemoved()
            || task.ended()) { // removed, or stopped at the fence, while it was fetched
          release(leases);
          return;
        }
        supervisor.launch(
            task,
            argv,
            Map.of(),
            false,
            (t, code, at) -> {
              release(leases);
              ended(t, code, at);
            });
      }
      if (saved != null) {
        resume(task, dir, saved, ownMemory);
      } else if (task.spec.arrives()) {
        moves.arrive(
            task,
            dir,
            () -> task.handle instanceof ProcessHandle p && p.isAlive(),
            () -> {
              if (task.handle instanceof ProcessHandle p) {
                p.destroyForcibly();
              }
            });
      } else {
        watchBoot(task, dir, Instant.now());
      }
      keepConsole(task, dir);
    } catch (ImageCache.ImageException e) {
      release(leases);
      task.failed(e.getMessage(), Instant.now());
    } catch (IOException e) {
      release(leases);
      task.failed("cannot start the VM: " + Tools.firstLine(e.getMessage()), Instant.now());
    } catch (InterruptedException e) {
      release(leases);
      Thread.currentThread().interrupt();
      task.failed("the agent stopped while the VM was starting", Instant.now());
    } catch (IllegalStateException e) {
      release(leases);
      task.failed("cannot start the VM: " + e.getMessage(), Instant.now());
    } catch (RuntimeException e) {
      // A defect of the agent's: the task fails, saying so, rather than stays starting for ever.
      release(leases);
      log.warn("task {} could not start", task.id, e);
      task.failed("cannot start the VM: " + e, Instant.now());
    } finally {
      if (task.ended()) {
        moves.ended(task); // it never started: no VM can arrive at it
      }
    }
  }

  /**
   * The memory the task resumes from, or null when it boots; a task that boots drops any memory its
   * VM saved, which its disk has moved on from.
   */
  private Path savedMemory(Task task) throws IOException {
    String id = task.spec.keepId(task.id);
    if (id == null) {
      return null;
    }
    if (!task.spec.resumes()) {
      if (task.spec.disk() == null || !task.spec.disk().persistent()) {
        disks.dropMemory(id);
      }
      return null;
    }
    Path saved = disks.memory(id);
    dev.rota.agentapi.DiskSource from = task.spec.disk() == null ? null : task.spec.disk().from();
    if (!Files.exists(saved) && from != null) {
      // It resumes here, its memory copied from the worker that saved it.
      task.progress("copying its saved memory from worker " + from.worker());
      disks.saveMemory(id, null, at -> pull(from, id, "memory.state", at, task));
    }
    if (!Files.exists(saved)) {
      throw new IOException("its saved memory is not on this worker, so it cannot resume");
    }
    task.progress("resuming the VM from its saved memory");
    return saved;
  }

  /** Copies the file {@code name} of what VM {@code id} keeps from {@code from} to {@code at}. */
  private static void pull(
      dev.rota.agentapi.DiskSource from, String id, String name, Path at, Task task)
      throws IOException {
    try {
      DiskPull.copy(from, id, name, at, task::progress);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("the agent stopped while it copied the VM's " + name);
    }
  }

  /**
   * The memory the image of a VM whose disk is fresh from it holds (a snapshot of a suspended VM):
   * the task takes it back instead of booting, its guest going on as the snapshotted one was, on a
   * disk that holds what that guest's did. Only on the machine it was saved on.
   *
   * @throws IllegalStateException when the VM's machine is not that one
   */
  private Path imageMemory(
      Task task, GuestSpec guest, List<Mounted> volumes, ImageCache.Lease disk) {
    String machine = machine(task, guest, volumes.stream().map(Mounted::spec).toList());
    if (!machine.equals(disk.machine())) {
      throw new IllegalStateException(
          "image "
              + disk.image()
              + " holds the memory of a guest on a machine of "
              + disk.machine()
              + ", and this VM's is "
              + machine
              + ": give it the same, or start it from an image of a disk alone");
    }
    task.progress("resuming the guest its image saved");
    return disk.memory();
  }

  /**
   * What a guest's saved memory needs of the QEMU that takes it back: the same CPUs, memory and
   * devices (a seed of user data, volumes, a kernel booted directly).
   */
  static String machine(Task task, GuestSpec guest, List<dev.rota.agentapi.VolumeSpec> mounted) {
    return cpus(task)
        + " CPU, "
        + memoryMib(task)
        + " MiB, "
        + (CloudInitSeed.seeded(guest, mounted) ? "user data" : "no user data")
        + ", "
        + mounted.size()
        + " volumes, "
        + (blank(guest.kernel()) ? "booted from its disk" : "booted from a kernel");
  }

  /**
   * Gives the QEMU just started the memory it resumes from, and runs the guest. The VM's own saved
   * memory ({@code own}) is used once: dropped whether or not the resume worked, so that the VM
   * never runs twice from it; an image's stays in the image cache. A resume that fails ends the
   * task, saying why.
   */
  private void resume(Task task, Path dir, Path saved, boolean own) {
    try {
      memory.load(
          GuestFiles.qmp(dir),
          GuestFiles.incoming(dir),
          saved,
          () -> task.handle instanceof ProcessHandle p && p.isAlive());
    } catch (IOException | InterruptedException e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      try {
        Files.writeString(
            dir.resolve("resume-failure"), String.valueOf(e.getMessage()), StandardCharsets.UTF_8);
      } catch (IOException ignored) {
        // the task is going anyway
      }
      if (task.handle instanceof ProcessHandle p) {
        p.destroyForcibly();
      }
    } finally {
      try {
        if (own) {
          disks.dropMemory(task.spec.keepId(task.id));
        }
      } catch (IOException e) {
        task.progress("its saved memory could not be dropped: " + e.getMessage());
      }
    }
  }

  /**
   * Saves the guest's memory with its disk and ends its QEMU. Refused for a VM whose disk goes with
   * its task (the memory would come back to a fresh disk), and while it is being suspended already.
   */
  @Override
  public long suspend(Task task) throws Refusal, IOException {
    String id = task.spec.keepId(task.id);
    if (id == null) {
      throw new Refusal(409, "vm task " + task.id + " was started without its submission");
    }
    if (!blank(task.spec.image()) && (task.spec.disk() == null || !task.spec.disk().persistent())) {
      throw new Refusal(
          409,
          "vm task "
              + task.id
              + "'s disk goes with the task: only a VM with a persistent disk, or booted from a"
              + " kernel without one, can be suspended");
    }
    Path marker = supervisor.folder(task.id).resolve("suspended");
    if (Files.exists(marker) && Files.exists(disks.memory(id))) {
      return Files.size(disks.memory(id)); // suspended already: a retried call
    }
    if (task.ended() || !(task.handle instanceof ProcessHandle process) || !process.isAlive()) {
      throw new Refusal(409, "vm task " + task.id + " is not running");
    }
    if (moves.leaving(task)) {
      throw new Refusal(409, "vm task " + task.id + " is moving to another worker");
    }
    if (!suspending.add(task.id)) {
      throw new Refusal(409, "vm task " + task.id + " is being suspended already");
    }
    try {
      Path dir = supervisor.folder(task.id);
      GuestSpec guest = task.spec.guest() == null ? GuestSpec.NONE : task.spec.guest();
      List<dev.rota.agentapi.VolumeSpec> mounted =
          task.spec.disk() == null ? List.of() : task.spec.disk().volumesOrNone();
      long bytes =
          disks.saveMemory(
              id,
              machine(task, guest, mounted),
              target ->
                  memory.save(
                      GuestFiles.qmp(dir),
                      dir,
                      GuestFiles.folder(dir).resolve("migrate.sock"),
                      target));
      Files.writeString(dir.resolve("suspended"), id, StandardCharsets.UTF_8);
      quit(task, dir, process);
      return bytes;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("the agent stopped while the VM was being suspended");
    } finally {
      suspending.remove(task.id);
    }
  }

  /**
   * Ends the QEMU of a guest that is kept elsewhere now (its memory saved, or sent to another
   * worker), and waits for its task to say so.
   */
  private void quit(Task task, Path dir, ProcessHandle process) throws InterruptedException {
    try {
      qmp.execute(GuestFiles.qmp(dir), "quit", QMP_DEADLINE);
    } catch (IOException e) {
      process.destroy(); // its guest is kept elsewhere: nothing is lost
    }
    try {
      process.onExit().get(30, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      process.destroyForcibly();
    }
    // Its end is reported by the thread that saw QEMU exit.
    for (int i = 0; i < 100 && !task.ended(); i++) {
      Thread.sleep(50);
    }
  }

  /**
   * Sends the running guest to the task of its VM's that waits for it on another worker, while it
   * runs ({@link QemuMoves}), and ends its QEMU here once that task has it. Refused while it is
   * suspended or moving already.
   */
  @Override
  public dev.rota.agentapi.LiveMove move(Task task, dev.rota.agentapi.LiveMove.Request to)
      throws Refusal, IOException {
    if (task.ended() || !(task.handle instanceof ProcessHandle process) || !process.isAlive()) {
      throw new Refusal(409, "vm task " + task.id + " is not running");
    }
    if (suspending.contains(task.id)) {
      throw new Refusal(409, "vm task " + task.id + " is being suspended");
    }
    if (paused(task)) {
      throw new Refusal(409, "vm task " + task.id + " is paused in place: continue it to move it");
    }
    Path dir = supervisor.folder(task.id);
    dev.rota.agentapi.LiveMove moved = moves.leave(task, dir, to);
    try {
      quit(task, dir, process);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly(); // its guest runs on the other worker
    }
    return moved;
  }

  @Override
  public dev.rota.agentapi.LiveMove.Outcome moveOf(Task task) {
    return moves.outcome(supervisor.folder(task.id));
  }

  @Override
  public Conduit incoming(Task task, String channel) throws Refusal, IOException {
    return moves.incoming(task, supervisor.folder(task.id), channel);
  }

  /**
   * Stops or runs on the guest's CPUs (QMP {@code stop}, {@code cont}), its QEMU and memory kept: a
   * marker in the task's folder says it is paused, for its health checks and for an agent started
   * again.
   */
  @Override
  public void pause(Task task, boolean pause) throws Refusal, IOException {
    if (!(task.handle instanceof ProcessHandle process) || !process.isAlive()) {
      throw new Refusal(409, "vm task " + task.id + " is not running");
    }
    Path dir = supervisor.folder(task.id);
    if (pause) {
      Files.writeString(dir.resolve(PAUSED), task.id, StandardCharsets.UTF_8);
      qmp.execute(GuestFiles.qmp(dir), "stop", QMP_DEADLINE);
    } else {
      qmp.execute(GuestFiles.qmp(dir), "cont", QMP_DEADLINE);
      Files.deleteIfExists(dir.resolve(PAUSED));
    }
  }

  @Override
  public boolean paused(Task task) {
    return Files.exists(supervisor.folder(task.id).resolve(PAUSED));
  }

  /** The marker of a guest paused in place. */
  private static final String PAUSED = "paused";

  /** A VM's root disk, and whether this task made it afresh from its image. */
  private record RootDisk(Path file, boolean fresh) {}

  /**
   * The VM's root disk, an overlay of its image: the VM's persistent disk on this worker (made by
   * its first task here, found again by the next), or one made afresh in the task's folder, which
   * goes with the task. At the size its spec asks for, when larger than the image.
   */
  private RootDisk rootDisk(Task task, Path dir, QemuHost host, ImageCache.Lease image, Integer uid)
      throws IOException, InterruptedException {
    dev.rota.agentapi.DiskSpec spec = task.spec.disk();
    Path overlay;
    boolean[] fresh = {false};
    if (spec != null && spec.persistent()) {
      task.progress("finding the VM's disk");
      overlay =
          disks.take(
              spec.id(),
              task,
              image,
              at -> {
                if (spec.from() == null || task.spec.arrives()) {
                  makeOverlay(host, image, at, spec);
                  fresh[0] = true;
                  return;
                }
                // It moves with its disk: a copy of the one its last worker holds, never a fresh
                // one. The base image is held here already, where the overlay expects it.
                task.progress("copying its disk from worker " + spec.from().worker());
                pull(spec.from(), spec.id(), "disk.qcow2", at, task);
              });
    } else {
      overlay = GuestFiles.folder(dir).resolve("disk.qcow2");
      Files.createDirectories(overlay.getParent());
      Files.deleteIfExists(overlay);
      makeOverlay(host, image, overlay, spec);
      fresh[0] = true;
    }
    own(overlay, uid);
    return new RootDisk(overlay, fresh[0]);
  }

  /**
   * The VM's data volumes on this worker, in its spec's order: each found again, or copied from the
   * worker that held it when the VM moves with its disk, or made blank by its first task.
   */
  private List<Mounted> volumes(Task task, QemuHost host, Integer uid)
      throws IOException, InterruptedException {
    dev.rota.agentapi.DiskSpec spec = task.spec.disk();
    List<Mounted> files = new ArrayList<>();
    for (dev.rota.agentapi.VolumeSpec v :
        spec == null ? List.<dev.rota.agentapi.VolumeSpec>of() : spec.volumesOrNone()) {
      task.progress("finding volume " + v.name());
      Path file =
          disks.take(
              v.id(),
              task,
              null,
              at -> {
                if (spec.from() == null || task.spec.arrives()) {
                  host.imageTool("create", "-q", "-f", "qcow2", at.toString(), v.sizeGi() + "G");
                  return;
                }
                dev.rota.agentapi.DiskSource from = spec.from();
                task.progress("copying volume " + v.name() + " from worker " + from.worker());
                // With the volume's own token: the disk's grants nothing else.
                pull(
                    new dev.rota.agentapi.DiskSource(
                        from.worker(), from.endpoint(), v.token(), from.certificateSha256()),
                    v.id(),
                    "disk.qcow2",
                    at,
                    task);
              });
      own(file, uid);
      files.add(new Mounted(v, file));
    }
    return files;
  }

  /** A data volume of the VM, and its file on this worker. */
  private record Mounted(dev.rota.agentapi.VolumeSpec spec, Path file) {}

  private static void makeOverlay(
      QemuHost host, ImageCache.Lease image, Path overlay, dev.rota.agentapi.DiskSpec spec)
      throws IOException {
    host.imageTool(
        "create",
        "-q",
        "-f",
        "qcow2",
        "-F",
        image.format(),
        "-b",
        here(overlay.getParent(), image.path()),
        overlay.toString());
    if (spec != null && spec.sizeGi() != null) {
      // Grown, never shrunk: qemu-img refuses a size below the image's, and says so.
      host.imageTool("resize", "-q", "-f", "qcow2", overlay.toString(), spec.sizeGi() + "G");
    }
  }

  private ImageCache.Lease lease(
      List<ImageCache.Lease> leases, String image, Consumer<String> progress)
      throws ImageCache.ImageException, InterruptedException {
    ImageCache.Lease lease = images.acquire(image, progress);
    leases.add(lease);
    return lease;
  }

  private void release(List<ImageCache.Lease> leases) {
    leases.forEach(l -> images.release(l.sha256()));
    leases.clear();
  }

  /**
   * The guest's network: QEMU's user-mode stack (the guest reaches out through the worker, as far
   * as its rules let it; nothing reaches in), with each named port forwarded from its worker's
   * port. A guest of egress {@code none} is cut off by QEMU itself too ({@code restrict=on}): only
   * its forwarded ports remain.
   */
  public static String nic(
      List<dev.rota.agentapi.PortSpec> ports,
      String forwardHost,
      dev.rota.agentapi.NetworkSpec network) {
    StringBuilder nic = new StringBuilder("user,model=virtio-net-pci");
    if (dev.rota.agentapi.NetworkSpec.orDefault(network)
        .egress()
        .equals(dev.rota.agentapi.NetworkSpec.NONE)) {
      nic.append(",restrict=on");
    }
    for (dev.rota.agentapi.PortSpec p : ports) {
      nic.append(",hostfwd=tcp:")
          .append(forwardHost)
          .append(':')
          .append(p.hostPort())
          .append("-:")
          .append(p.port());
    }
    return nic.toString();
  }

  private static long cpus(Task task) {
    Map<String, Long> resources = task.spec.resources() == null ? Map.of() : task.spec.resources();
    return Math.max(1, resources.getOrDefault("cpu", 1L));
  }

  private static long memoryMib(Task task) {
    Map<String, Long> resources = task.spec.resources() == null ? Map.of() : task.spec.resources();
    return Math.max(32, resources.getOrDefault("memory", 512L));
  }

  /**
   * QEMU's command line for the task: its resources, console, control socket, disks and boot, under
   * QEMU's seccomp filter; its files made {@code uid}'s when it runs as one.
   */
  private List<String> command(
      Task task,
      Path dir,
      QemuHost host,
      Path rootDisk,
      List<Mounted> volumes,
      ImageCache.Lease kernel,
      ImageCache.Lease initrd,
      GuestSpec guest,
      Integer uid)
      throws IOException {
    long cpus = cpus(task);
    long memory = memoryMib(task);
    Path files = GuestFiles.folder(dir);
    Files.createDirectories(files);
    List<String> argv =
        new ArrayList<>(List.of(host.binary().toString(), "-name", "rota-" + task.id));
    argv.addAll(host.machine());
    argv.addAll(
        List.of(
            "-smp",
            Long.toString(cpus),
            "-m",
            memory + "M",
            "-nodefaults",
            "-no-user-config",
            "-display",
            "none",
            // QEMU's seccomp filter, with the denials QEMU's documentation recommends: no
            // obsolete system calls, no change of user, no new processes, no change of limits.
            "-sandbox",
            "on,obsolete=deny,elevateprivileges=deny,spawn=deny,resourcecontrol=deny",
            // The serial console is a socket a user attaches to (one at a time), and everything
            // it says goes to the log, attached or not. Appending, so that the agent can cut the
            // file at its cap while QEMU writes on (CappedLog).
            "-chardev",
            "socket,id=console,server=on,wait=off,path="
                + here(dir, GuestFiles.console(dir))
                + ",logfile=stdout.log"
                + ",logappend=on",
            "-serial",
            "chardev:console",
            // The guest agent's port, for exec in an image that runs qemu-ga.
            "-device",
            "virtio-serial-pci",
            "-chardev",
            "socket,id=guest-agent,server=on,wait=off,path="
                + here(dir, GuestFiles.guestAgent(dir)),
            "-device",
            "virtserialport,chardev=guest-agent,name=org.qemu.guest_agent.0",
            "-qmp",
            "unix:" + here(dir, GuestFiles.qmp(dir)) + ",server=on,wait=off",
            "-device",
            "pvpanic-pci",
            "-action",
            "panic=exit-failure",
            "-device",
            "isa-debug-exit,iobase=0xf4,iosize=0x01",
            // A generation id the guest reads through ACPI, new in each QEMU: a guest resumed
            // from saved memory (many, from one image's) is told it may have been cloned, and
            // Linux reseeds its random numbers, so that no two guests draw the same keys.
            "-device",
            "vmgenid,guid=auto",
            "-nic",
            nic(task.spec.portsOrNone(), forwardHost, task.spec.network())));
    if (rootDisk != null && volumes.isEmpty()) {
      argv.addAll(List.of("-drive", "file=" + here(dir, rootDisk) + ",if=virtio,format=qcow2"));
    } else if (rootDisk != null) {
      // Volumes are devices of their own (for their serials), which QEMU sets up before the disks
      // of -drive if=virtio: the firmware would look for a boot sector on a volume first.
      argv.addAll(
          List.of(
              "-drive",
              "file=" + here(dir, rootDisk) + ",if=none,id=root,format=qcow2",
              "-device",
              "virtio-blk-pci,drive=root,bootindex=0"));
    }
    for (int i = 0; i < volumes.size(); i++) {
      // Its name as the disk's serial: the guest finds it at /dev/disk/by-id/virtio-<name>.
      argv.addAll(
          List.of(
              "-drive",
              "file="
                  + here(dir, volumes.get(i).file())
                  + ",if=none,id=volume"
                  + i
                  + ",format=qcow2",
              "-device",
              "virtio-blk-pci,drive=volume" + i + ",serial=" + volumes.get(i).spec().name()));
    }
    List<dev.rota.agentapi.VolumeSpec> mounted = volumes.stream().map(Mounted::spec).toList();
    if (CloudInitSeed.seeded(guest, mounted)) {
      Path seed = CloudInitSeed.write(files, task.id, task.spec.vm(), guest, mounted);
      own(seed, uid);
      argv.addAll(
          List.of("-drive", "file=" + here(dir, seed) + ",if=virtio,format=raw,readonly=on"));
    }
    if (kernel != null) {
      argv.addAll(List.of("-kernel", here(dir, kernel.path())));
      if (initrd != null) {
        argv.addAll(List.of("-initrd", here(dir, initrd.path())));
      }
      String args = blank(guest.kernelArgs()) ? "" : guest.kernelArgs().strip();
      // The serial port is the VM's log: a kernel told no console would say nothing there.
      argv.addAll(
          List.of("-append", args.contains("console=") ? args : ("console=ttyS0 " + args).strip()));
    }
    return argv;
  }

  /**
   * Watches the console while the firmware looks for something to boot: finding nothing, it waits
   * for ever, so the VM is ended as failed with what it printed.
   */
  private void watchBoot(Task task, Path dir, Instant since) {
    timers.schedule(
        () -> {
          if (task.ended()
              || task.isRemoved()
              || Duration.between(since, Instant.now()).compareTo(BOOT_WATCH) > 0) {
            return;
          }
          Optional<String> failure = consoleLine(dir, BOOT_FAILURES);
          if (failure.isPresent()) {
            try {
              Files.writeString(dir.resolve("boot-failure"), failure.get(), StandardCharsets.UTF_8);
            } catch (IOException e) {
              // the task is going anyway
            }
            if (task.handle instanceof ProcessHandle p) {
              p.destroyForcibly();
            }
            return;
          }
          watchBoot(task, dir, since);
        },
        1,
        TimeUnit.SECONDS);
  }

  /** Keeps the console within its cap while the VM runs ({@link CappedLog}). */
  private void keepConsole(Task task, Path dir) {
    timers.schedule(
        () -> {
          if (task.ended() || task.isRemoved()) {
            return;
          }
          try {
            CappedLog.trim(dir.resolve("stdout.log"));
          } catch (IOException e) {
            // the folder went away with the task
          }
          keepConsole(task, dir);
        },
        CONSOLE_CHECK.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  /** What QEMU's exit code says happened to the guest. */
  void ended(Task task, Integer code, Instant at) {
    moves.ended(task);
    Path dir = supervisor.folder(task.id);
    Optional<String> bootFailure = read(dir.resolve("boot-failure"));
    Optional<String> panic = consoleLine(dir, List.of("Kernel panic"));
    Optional<String> resumeFailure = read(dir.resolve("resume-failure"));
    Optional<String> movedTo = read(dir.resolve(QemuMoves.MOVED));
    Optional<String> arrivalFailure = read(dir.resolve(QemuMoves.ARRIVAL_FAILURE));
    if (Files.exists(dir.resolve("suspended"))) {
      task.ended(0, "suspended: its memory is saved on this worker", at);
    } else if (movedTo.isPresent()) {
      task.ended(0, "moved to worker " + movedTo.get() + " while it ran", at);
    } else if (arrivalFailure.isPresent()) {
      task.failed(
          "the VM did not arrive from the worker it leaves, and runs on there: "
              + arrivalFailure.get()
              + qemuComplaint(dir).map(c -> " (QEMU: " + c + ")").orElse(""),
          at);
    } else if (resumeFailure.isPresent()) {
      task.failed(
          "the VM could not resume from its saved memory: "
              + resumeFailure.get()
              + qemuComplaint(dir).map(c -> " (QEMU: " + c + ")").orElse(""),
          at);
    } else if (confinement.oomKilled(task.id)) {
      task.failed(
          "killed by the kernel for using more than its memory limit of "
              + GuestConfinement.memoryLimitMib(
                  memoryMib(task), hostFound.join().accel().equals("tcg"))
              + " MiB (its RAM and QEMU's own)",
          at);
    } else if (bootFailure.isPresent()) {
      task.failed("the VM found nothing to boot: " + bootFailure.get(), at);
    } else if (code == null) {
      if (panic.isPresent()) {
        task.failed("the guest panicked: " + panic.get(), at);
      } else {
        task.ended(null, "the VM ended while adopted after an agent restart; how is unknown", at);
      }
    } else if (code == 0) {
      task.ended(0, "the guest powered off", at);
    } else if (code == 1) {
      Optional<String> complaint = qemuComplaint(dir);
      if (complaint.isPresent()) {
        task.failed("QEMU failed: " + complaint.get(), at);
      } else {
        task.failed("the guest panicked" + panic.map(p -> ": " + p).orElse(""), at);
      }
    } else if (code % 2 == 1 && code < 128) {
      int status = (code - 1) / 2;
      task.ended(status, "the guest ended with status " + status, at);
    } else {
      task.failed(
          "QEMU ended with code " + code + qemuComplaint(dir).map(c -> ": " + c).orElse(""), at);
    }
  }

  /**
   * The guest's serial console: what it prints, and what is typed to it. One user attached at a
   * time (QEMU's socket takes one client; a second would wait unseen).
   */
  @Override
  public Conduit console(Task task) throws Refusal, IOException {
    Path socket = GuestFiles.console(supervisor.folder(task.id));
    if (!Files.exists(socket)) {
      throw new Refusal(409, "vm task " + task.id + " was started without a console socket");
    }
    if (!attached.add(task.id)) {
      throw new Refusal(
          409, "the console of vm task " + task.id + " is in use: another user is attached");
    }
    try {
      return Conduit.unix(socket, () -> attached.remove(task.id));
    } catch (IOException e) {
      attached.remove(task.id);
      throw e;
    }
  }

  /** A command run in the guest by its guest agent ({@link GuestAgent}). */
  @Override
  public Execution exec(Task task, List<String> command) throws Refusal, IOException {
    try {
      return guestAgent.exec(task.id, supervisor.folder(task.id), command);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Refusal(409, "the agent is stopping");
    }
  }

  /** User data written into the guest by its guest agent ({@link GuestAgent#deliver}). */
  @Override
  public void deliver(Task task, byte[] userData) throws Refusal, IOException {
    try {
      guestAgent.deliver(task.id, supervisor.folder(task.id), userData);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Refusal(409, "the agent is stopping");
    }
  }

  /**
   * QEMU's user-mode stack takes a connection to a forwarded port on the worker at once and only
   * then connects to the guest, which may not answer yet (still booting): such a connection shows
   * in {@code info usernet} as {@code SYN_SENT} to the guest's port. One that cannot be asked about
   * counts as waiting.
   */
  @Override
  public boolean stillConnecting(Task task, int guestPort) {
    try {
      String table =
          qmp.human(GuestFiles.qmp(supervisor.folder(task.id)), "info usernet", QMP_DEADLINE);
      return table
          .lines()
          .map(l -> l.strip().split("\\s+"))
          .anyMatch(
              w ->
                  w.length >= 6
                      && w[0].equals("TCP[SYN_SENT]")
                      && w[5].equals(Integer.toString(guestPort)));
    } catch (IOException e) {
      return true;
    }
  }

  @Override
  public boolean guestAgentAnswers(Task task, Duration wait) throws InterruptedException {
    return guestAgent.answers(task.id, supervisor.folder(task.id), wait);
  }

  @Override
  public void stop(Task task, Duration grace) {
    Path socket = GuestFiles.qmp(supervisor.folder(task.id));
    if (moves.awaiting(task)) {
      // Its QEMU waits for a VM that has not arrived: there is no guest to power down.
      Supervisor.stop(task, grace, ProcessHandle::destroy);
      return;
    }
    if (paused(task)) {
      try {
        pause(task, false); // a paused guest would not hear its power button
      } catch (Refusal | IOException e) {
        // not running: nothing to press
      }
    }
    Supervisor.stop(task, grace, handle -> press(socket, handle));
  }

  /**
   * Presses the guest's power button, and again every few seconds until it is off: a guest still
   * booting has nothing listening yet and misses a press. A QEMU that does not answer is sent
   * SIGTERM, on which it ends the VM at once.
   */
  private void press(Path socket, ProcessHandle handle) {
    if (!handle.isAlive()) {
      return;
    }
    try {
      qmp.execute(socket, "system_powerdown", QMP_DEADLINE);
      timers.schedule(() -> press(socket, handle), PRESS_AGAIN.toMillis(), TimeUnit.MILLISECONDS);
    } catch (IOException e) {
      handle.destroy();
    }
  }

  /** A task found again after an agent restart; its images are kept while its VM runs. */
  @Override
  public Task recover(Path record, Consumer<TaskView> changes) throws IOException {
    Path dir = record.getParent();
    List<String> shas =
        Files.exists(dir.resolve("images")) ? Files.readAllLines(dir.resolve("images")) : List.of();
    Task task =
        supervisor.recover(
            record,
            changes,
            (t, code, at) -> {
              shas.forEach(images::release);
              ended(t, code, at);
            });
    if (task != null) {
      shas.forEach(images::retain);
      if (task.ended()) {
        shas.forEach(images::release);
      } else {
        keepConsole(task, dir);
        if (task.handle instanceof ProcessHandle waiting) {
          moves.adoptedWaiting(task, dir, waiting);
        }
        if (moves.interrupted(task, dir) && task.handle instanceof ProcessHandle process) {
          try {
            quit(task, dir, process); // its guest runs on the worker it moved to
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
          }
        }
      }
    }
    return task;
  }

  /** Gives back the guest's user, rules and control group once its task is removed. */
  @Override
  public void forget(String id, Path dir) {
    confinement.release(id, dir);
  }

  /**
   * {@code file} as QEMU, working in the task's folder {@code dir}, is told it: a path from there.
   * A confined QEMU then needs no right to pass through the folders above the agent's data folder,
   * and its sockets' paths stay short.
   */
  private static String here(Path dir, Path file) {
    return dir.toAbsolutePath().relativize(file.toAbsolutePath()).toString();
  }

  /** Makes {@code file} the guest user's, when the guest runs as one. */
  private static void own(Path file, Integer uid) throws IOException {
    if (uid != null) {
      GuestConfinement.own(file, uid);
      Files.setPosixFilePermissions(
          file,
          java.util.Set.of(
              java.nio.file.attribute.PosixFilePermission.OWNER_READ,
              java.nio.file.attribute.PosixFilePermission.OWNER_WRITE));
    }
  }

  /** QEMU's own complaint on stderr (its last line that is not a warning). */
  private static Optional<String> qemuComplaint(Path dir) {
    return read(dir.resolve("stderr.log"))
        .flatMap(
            text ->
                text.lines()
                    .map(String::strip)
                    .filter(
                        l ->
                            !l.isEmpty()
                                && !l.contains("warning:")
                                && !l.contains("terminating on signal"))
                    .reduce((a, b) -> b));
  }

  /** The last console line holding any of {@code markers}, without the kernel's time stamp. */
  private static Optional<String> consoleLine(Path dir, List<String> markers) {
    return read(dir.resolve("stdout.log"))
        .flatMap(
            text ->
                text.lines()
                    .filter(l -> markers.stream().anyMatch(l::contains))
                    .map(
                        l ->
                            l.replaceAll("^\\[[ 0-9.]*\\]\\s*", "")
                                .replaceAll("\\p{Cntrl}", "")
                                .strip())
                    .reduce((a, b) -> b));
  }

  private static Optional<String> read(Path file) {
    try {
      return Files.exists(file)
          ? Optional.of(Files.readString(file, StandardCharsets.ISO_8859_1).strip())
          : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }
}
