package dev.rota.agent.runtimes;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.rota.agent.images.HeldImages;
import dev.rota.agent.images.ImageCache;
import dev.rota.agent.images.OciRegistry;
import dev.rota.agent.tasks.Conduit;
import dev.rota.agent.tasks.Execution;
import dev.rota.agent.tasks.HealthChecks;
import dev.rota.agent.tasks.Refusal;
import dev.rota.agent.tasks.Supervisor;
import dev.rota.agent.tasks.Task;
import dev.rota.agentapi.GuestSpec;
import dev.rota.agentapi.TaskSpec;
import dev.rota.agentapi.TaskView;
import dev.rota.testing.LoopbackRegistry;
import dev.rota.testing.TestGuest;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The qemu runtime booting real guests (the test guest of {@code .ci/qemu}) under whatever
 * accelerator this machine has: software emulation where KVM does not work. Several VMs boot at
 * once where a test needs more than one.
 */
public class QemuRuntimeTest {
  private static final Duration BOOT = Duration.ofMinutes(3);
  private static TestGuest guest;

  @TempDir Path data;
  private final ObjectMapper json = new ObjectMapper();
  private final ExecutorService starts = Executors.newCachedThreadPool();
  private final ScheduledExecutorService timers = Executors.newScheduledThreadPool(2);
  private Supervisor supervisor;
  private ImageCache cache;
  private HeldImages held;
  private QemuRuntime runtime;
  private GuestConfinement confinement;
  private HttpServer images;
  private final AtomicInteger imageRequests = new AtomicInteger();

  @BeforeAll
  static void guest() {
    guest = TestGuest.get();
  }

  @BeforeEach
  void runtime() throws IOException {
    supervisor = new Supervisor(data.resolve("tasks"), json);
    confinement =
        GuestConfinement.detect(
            Cgroups.detect("qemu-test-" + ProcessHandle.current().pid()),
            data,
            new int[] {1879048192, 1879113727},
            List.of());
    held = new HeldImages(data.resolve("images.json"), json, Clock.systemUTC());
    cache =
        new ImageCache(
            data.resolve("images"),
            1L << 30,
            json,
            Clock.systemUTC(),
            held,
            new OciRegistry(json, Map.of(), java.util.Set.of()));
    runtime = runtime(cache);
    images = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
    images.createContext(
        "/disk.qcow2",
        x -> {
          imageRequests.incrementAndGet();
          byte[] body = Files.readAllBytes(guest.qcow2Disk());
          x.sendResponseHeaders(200, body.length);
          try (var out = x.getResponseBody()) {
            out.write(body);
          }
        });
    images.start();
  }

  private QemuRuntime runtime(ImageCache images) throws IOException {
    return new QemuRuntime(
        supervisor,
        images,
        java.util.concurrent.CompletableFuture.completedFuture(
            QemuHost.of("auto", data.resolve("scratch"))),
        starts,
        timers,
        "127.0.0.1",
        confinement,
        new PersistentDisks(data.resolve("disks"), images, json),
        new java.util.concurrent.CompletableFuture<>()); // no other agent to move VMs to
  }

  /** The OCI registry a test started, stopped after it. */
  private LoopbackRegistry registry;

  @AfterEach
  void close() throws IOException {
    if (registry != null) {
      registry.close();
    }
    // What each guest held on the machine (its user's rules, its group), as a removal gives back.
    Path tasks = data.resolve("tasks");
    if (Files.isDirectory(tasks)) {
      try (var dirs = Files.list(tasks)) {
        for (Path dir : dirs.toList()) {
          theQemuOf(dir)
              .ifPresent(
                  p -> {
                    p.destroyForcibly();
                    p.onExit().join();
                  });
          runtime.forget(dir.getFileName().toString(), dir);
        }
      }
    }
    images.stop(0);
    starts.shutdownNow();
    timers.shutdownNow();
  }

  private Task start(
      String id, String image, GuestSpec guestSpec, long cpu, long memory, List<TaskView> changes) {
    Task task =
        new Task(
            id,
            new TaskSpec(
                id.substring(0, id.indexOf('.')),
                0,
                "qemu",
                image,
                List.of(),
                Map.of(),
                Map.of("cpu", cpu, "memory", memory),
                guestSpec),
            changes::add);
    runtime.start(task);
    return task;
  }

  private GuestSpec direct(String mode) {
    return new GuestSpec(
        guest.kernel().toUri().toString(),
        guest.initrd().toUri().toString(),
        "quiet rota.test=" + mode,
        null,
        null,
        null);
  }

  private String console(String id) {
    try {
      Path log = supervisor.folder(id).resolve("stdout.log");
      return Files.exists(log)
          ? Files.readString(log, java.nio.charset.StandardCharsets.ISO_8859_1)
          : "";
    } catch (IOException e) {
      return "";
    }
  }

  /** The QEMU of the task whose folder is {@code dir}. */
  static java.util.Optional<ProcessHandle> theQemuOf(Path dir) {
    return dev.rota.testing.GuestProcesses.under(dir).stream().findFirst();
  }

  private static Map<String, String> procStatus(long pid) throws IOException {
    Map<String, String> fields = new java.util.HashMap<>();
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      int colon = line.indexOf(':');
      if (colon > 0) {
        fields.put(line.substring(0, colon), line.substring(colon + 1).strip());
      }
    }
    return fields;
  }

  /**
   * A file of the group a process is in ({@code /proc/PID/cgroup}'s lines), by its v2 or v1 name.
   */
  private static String cgroupFile(String groups, String controller, String v2, String v1)
      throws IOException {
    for (String line : groups.split("\n")) {
      String[] parts = line.split(":", 3);
      if (parts[1].isEmpty()) {
        Path f = Path.of("/sys/fs/cgroup" + parts[2], v2);
        if (Files.exists(f)) {
          return Files.readString(f).strip();
        }
      } else if (List.of(parts[1].split(",")).contains(controller)) {
        for (String mount : List.of("/sys/fs/cgroup/" + controller, "/sys/fs/cgroup/" + parts[1])) {
          Path f = Path.of(mount + parts[2], v1);
          if (Files.exists(f)) {
            return Files.readString(f).strip();
          }
        }
      }
    }
    return "";
  }

  /** A shell command's exit code and output. */
  private record Ran(int code, String out, String err) {}

  /** A shell command run in the guest by its guest agent, given {@code stdin}. */
  private Ran run(Task task, String stdin, String command) throws Exception {
    Execution run = runtime.exec(task, List.of("sh", "-c", command));
    run.stdin().write(stdin.getBytes(StandardCharsets.UTF_8));
    run.stdin().close();
    java.io.ByteArrayOutputStream framed = new java.io.ByteArrayOutputStream();
    int code = run.await(new dev.rota.agentapi.ExecFrames.Writer(framed));
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    new dev.rota.agentapi.ExecFrames.Reader(out, err).write(framed.toByteArray());
    return new Ran(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /** What a shell command run in the guest wrote, asserting it succeeded. */
  private String inGuest(Task task, String command) throws Exception {
    Ran ran = run(task, "", command);
    assertEquals(0, ran.code(), command + ": " + ran.err());
    return ran.out();
  }

  private static TaskView last(List<TaskView> changes) {
    return changes.get(changes.size() - 1);
  }

  @Test
  void aGuestSeesTheCpusAndMemoryAskedAndPowersOffWithinTheGraceWhenStopped() throws Exception {
    List<TaskView> changes = new CopyOnWriteArrayList<>();
    int echoPort;
    try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
      echoPort = free.getLocalPort();
    }
    Task task =
        new Task(
            "boot.0",
            new TaskSpec(
                    "boot",
                    0,
                    "qemu",
                    null,
                    List.of(),
                    Map.of(),
                    Map.of("cpu", 2L, "memory", 256L),
                    direct("run"))
                .withPorts(List.of(new dev.rota.agentapi.PortSpec("echo", 7, echoPort))),
            changes::add);
    runtime.start(task);
    eventually(
        "the guest's init waits for its power button",
        BOOT,
        () -> console("boot.0").contains("ROTA-GUEST-ALIVE"));
    Matcher up =
        Pattern.compile("ROTA-GUEST-UP cpus=(\\d+) memory_mib=(\\d+)").matcher(console("boot.0"));
    assertTrue(up.find(), console("boot.0"));
    assertEquals(2, Integer.parseInt(up.group(1)), "the vCPUs asked");
    int memory = Integer.parseInt(up.group(2));
    assertTrue(
        memory > 160 && memory <= 256, "256 MiB asked, less what the kernel keeps: " + memory);
    assertEquals("running", last(changes).state());

    // Its QEMU is held: a user of its own, QEMU's seccomp filter, the VM's own control group with
    // its CPU quota and a memory limit of its RAM and QEMU's own.
    assertTrue(confinement.available(), "this machine confines guests: " + confinement.reason());
    ProcessHandle qemu = theQemuOf(supervisor.folder("boot.0")).orElseThrow();
    Map<String, String> status = procStatus(qemu.pid());
    String uid = status.get("Uid").split("\\s+")[0];
    assertTrue(!uid.equals("0") && Long.parseLong(uid) >= 1879048192L, "its own user: " + uid);
    assertEquals(uid, Files.readString(supervisor.folder("boot.0").resolve("guest-uid")));
    assertEquals("2", status.get("Seccomp"), "QEMU's seccomp filter is on");
    String groups = Files.readString(Path.of("/proc/" + qemu.pid() + "/cgroup"));
    assertTrue(groups.contains("/boot.0\n"), "in the VM's control group: " + groups);
    long limit = GuestConfinement.memoryLimitMib(256, true) << 20;
    assertTrue(
        cgroupFile(groups, "memory", "memory.max", "memory.limit_in_bytes")
                .equals(Long.toString(limit))
            || cgroupFile(groups, "memory", "memory.max", "memory.limit_in_bytes")
                .equals(Long.toString(GuestConfinement.memoryLimitMib(256, false) << 20)),
        "a memory limit of its RAM and QEMU's own");
    assertTrue(
        cgroupFile(groups, "cpu", "cpu.max", "cpu.cfs_quota_us").startsWith("200000"),
        "a quota of its 2 CPUs");

    // Its named port, forwarded from the worker's port: the guest's echo service answers there.
    try (java.net.Socket echo = new java.net.Socket("127.0.0.1", echoPort)) {
      echo.getOutputStream().write("through the forward\n".getBytes(StandardCharsets.UTF_8));
      echo.shutdownOutput();
      assertEquals(
          "through the forward\n",
          new String(echo.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    // Its serial console: what is typed reaches the guest's shell, and what it says comes back
    // (and goes to the log as well).
    java.io.ByteArrayOutputStream said = new java.io.ByteArrayOutputStream();
    try (Conduit console = runtime.console(task)) {
      Thread reading =
          new Thread(
              () -> {
                try {
                  console.input().transferTo(said);
                } catch (IOException e) {
                  // closed
                }
              });
      reading.start();
      Refusal second =
          org.junit.jupiter.api.Assertions.assertThrows(Refusal.class, () -> runtime.console(task));
      assertEquals(409, second.status(), "one session at a time");
      console.output().write("echo ROTA-$((6*7))\n".getBytes(StandardCharsets.UTF_8));
      eventually(
          "the shell's answer on the console",
          Duration.ofSeconds(30),
          () -> {
            synchronized (said) {
              return said.toString(StandardCharsets.UTF_8).contains("ROTA-42");
            }
          });
    }
    assertTrue(console("boot.0").contains("ROTA-42"), "the console's log has the session");
    runtime.console(task).close(); // free again once the session ended

    // A command through the guest agent: its stdin, output and exit code.
    Ran command = run(task, "typed\n", "read x; echo got $x; echo oops >&2; exit 3");
    assertEquals(3, command.code());
    assertEquals("got typed\n", command.out());
    assertEquals("oops\n", command.err());

    // User data given once it runs (a claim's), through the guest agent: kept for root alone and
    // run as a script, once; given again, not run again. Data that is no script is only kept.
    byte[] script =
        "#!/bin/sh\necho ROTA-USER-DATA-$((6*7)) > /dev/console\n".getBytes(StandardCharsets.UTF_8);
    runtime.deliver(task, script);
    runtime.deliver(task, script);
    eventually(
        "the user data's script ran",
        Duration.ofSeconds(30),
        () -> console("boot.0").contains("ROTA-USER-DATA-42"));
    assertEquals(
        "700 " + new String(script, StandardCharsets.UTF_8),
        inGuest(task, "stat -c '%a ' /run/rota/user-data | tr -d '\\n'; cat /run/rota/user-data"));
    assertEquals(
        1,
        Pattern.compile("ROTA-USER-DATA-42").matcher(console("boot.0")).results().count(),
        "run once:\n" + console("boot.0"));
    runtime.deliver(task, "token=abc\n".getBytes(StandardCharsets.UTF_8));
    assertEquals(
        "600 token=abc\n",
        inGuest(task, "stat -c '%a ' /run/rota/user-data | tr -d '\\n'; cat /run/rota/user-data"));

    runtime.stop(task, Duration.ofMinutes(2));
    assertTrue(
        console("boot.0").contains("ROTA-GUEST-POWER-BUTTON"),
        "it was asked through its power button, not killed");
    eventually("ended", () -> task.ended());
    assertEquals("exited", last(changes).state());
    assertEquals(0, last(changes).exitCode());
    assertEquals("the guest powered off", last(changes).message());
  }

  /**
   * Ready once its echo port answers in the guest (not when QEMU alone takes the connection); when
   * its echo service is stopped from inside, its liveness check on that port fails twice and the
   * agent stops it: failed, in the check's words.
   */
  @Test
  void aGuestIsReadyOnceItsPortAnswersAndIsStoppedWhenItsLivenessCheckFails() throws Exception {
    List<TaskView> changes = new CopyOnWriteArrayList<>();
    int echoPort;
    try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
      echoPort = free.getLocalPort();
    }
    dev.rota.agentapi.CheckSpec readiness =
        new dev.rota.agentapi.CheckSpec(null, "echo", null, null, 0, 1, 2, 1);
    dev.rota.agentapi.CheckSpec liveness =
        new dev.rota.agentapi.CheckSpec(null, "echo", null, null, 0, 1, 2, 2);
    Task task =
        new Task(
            "checked.0",
            new TaskSpec(
                "checked",
                0,
                "qemu",
                null,
                List.of(),
                Map.of(),
                Map.of("cpu", 1L, "memory", 128L),
                direct("run"),
                null,
                List.of(new dev.rota.agentapi.PortSpec("echo", 7, echoPort)),
                null,
                null,
                new dev.rota.agentapi.Checks(readiness, liveness),
                null),
            changes::add);
    HealthChecks checks = new HealthChecks(timers, starts, "127.0.0.1", Duration.ofSeconds(5));
    runtime.start(task);
    checks.watch(task, runtime);
    eventually(
        "ready", BOOT, () -> !changes.isEmpty() && Boolean.TRUE.equals(last(changes).ready()));
    assertTrue(last(changes).readySince() != null);
    assertTrue(
        console("checked.0").contains("ROTA-GUEST-UP"),
        "ready only once the guest answers on the port, not while QEMU alone takes connections");
    assertTrue(runtime.guestAgentAnswers(task, Duration.ofSeconds(5)), "its guest agent answers");
    assertEquals("running", last(changes).state(), "the echo service answers its liveness check");

    Execution stop = runtime.exec(task, List.of("killall", "nc"));
    stop.stdin().close();
    stop.await(new dev.rota.agentapi.ExecFrames.Writer(java.io.OutputStream.nullOutputStream()));
    eventually("stopped for its liveness", BOOT, task::ended);
    assertEquals("failed", last(changes).state());
    assertEquals(
        "liveness check tcp on port echo failed 2 times: the connection was closed at once:"
            + " nothing listens",
        last(changes).message());
  }

  @Test
  void aPanicFailsTheTaskSayingSoAndAGuestsOwnStatusIsItsExitCode() {
    List<TaskView> panicked = new CopyOnWriteArrayList<>();
    List<TaskView> exited = new CopyOnWriteArrayList<>();
    Task panic = start("panic.0", null, direct("panic"), 1, 128, panicked);
    Task status = start("status.0", null, direct("exit:5"), 1, 128, exited);
    eventually("both ended", BOOT, () -> panic.ended() && status.ended());
    assertEquals("failed", last(panicked).state());
    assertTrue(
        last(panicked).message().startsWith("the guest panicked: Kernel panic - not syncing"),
        last(panicked).message());
    assertEquals("exited", last(exited).state());
    assertEquals(5, last(exited).exitCode());
  }

  /**
   * Also a third VM, at the same time, from the same disk pushed to the loopback OCI registry and
   * pulled by its agent with its credentials through token auth.
   */
  @Test
  void twoVmsOfOneImageServedOverHttpFetchItOnceAndBootFromOverlaysWithTheirUserData()
      throws Exception {
    registry = new LoopbackRegistry(Files.createDirectories(data.resolve("registry")));
    registry.push(
        "rota/guest",
        "1",
        List.of(
            new LoopbackRegistry.Layer(
                "application/vnd.rota.disk.v1+qcow2", Files.readAllBytes(guest.qcow2Disk()))));
    ImageCache pulling =
        new ImageCache(
            data.resolve("oci-images"),
            1L << 30,
            json,
            Clock.systemUTC(),
            held,
            new OciRegistry(
                json,
                OciRegistry.credentials(
                    json, registry.credentials(data, LoopbackRegistry.PASSWORD)),
                java.util.Set.of()));
    List<TaskView> c = new CopyOnWriteArrayList<>();
    Task third =
        new Task(
            "pulled.0",
            new TaskSpec(
                "pulled",
                0,
                "qemu",
                "oci://" + registry.address + "/rota/guest:1",
                List.of(),
                Map.of(),
                Map.of("cpu", 1L, "memory", 128L),
                new GuestSpec(null, null, null, "#cloud-config\n# rota.test=exit:4\n", null, null)),
            c::add);
    runtime(pulling).start(third);
    String image =
        "http://127.0.0.1:"
            + images.getAddress().getPort()
            + "/disk.qcow2@sha256:"
            + sha256(guest.qcow2Disk());
    List<TaskView> a = new CopyOnWriteArrayList<>();
    List<TaskView> b = new CopyOnWriteArrayList<>();
    Task first =
        start(
            "disk-a.0",
            image,
            new GuestSpec(null, null, null, "#cloud-config\n# rota.test=poweroff\n", null, null),
            1,
            128,
            a);
    // Its user data is a secret's value: the guest reads it, no record on disk holds it.
    Task second =
        new Task(
            "disk-b.0",
            new TaskSpec(
                "disk-b",
                0,
                "qemu",
                image,
                List.of(),
                Map.of(),
                Map.of("cpu", 1L, "memory", 128L),
                new GuestSpec(null, null, null, "#cloud-config\n# rota.test=exit:3\n", null, null),
                null,
                null,
                null,
                null,
                null,
                new dev.rota.agentapi.SecretRefs(null, "ci-user-data", null)),
            b::add);
    runtime.start(second);
    eventually("all three ended", BOOT, () -> first.ended() && second.ended() && third.ended());
    assertEquals(1, imageRequests.get(), "one fetch for both");
    assertEquals(
        List.of("exited", 4), List.of(last(c).state(), last(c).exitCode()), console("pulled.0"));
    assertTrue(
        c.stream().anyMatch(v -> String.valueOf(v.message()).startsWith("pulling ")),
        "the pull's progress was its message: " + c);
    assertEquals(
        List.of("exited", 0), List.of(last(a).state(), last(a).exitCode()), console("disk-a.0"));
    assertEquals(
        List.of("exited", 3), List.of(last(b).state(), last(b).exitCode()), console("disk-b.0"));
    assertTrue(
        console("disk-a.0").contains("ROTA-GUEST-USER-DATA #cloud-config"),
        "the user data reached the guest");
    Path secretOnes = supervisor.folder("disk-b.0");
    try (java.util.stream.Stream<Path> files = Files.walk(secretOnes)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        String name = f.getFileName().toString();
        // The seed disk is the guest's own; its console output (stdout) what the guest printed.
        if (!name.equals("seed.img") && !name.startsWith("stdout")) {
          assertFalse(
              new String(Files.readAllBytes(f), java.nio.charset.StandardCharsets.ISO_8859_1)
                  .contains("rota.test=exit:3"),
              f + " holds the secret user data");
        }
      }
    }
    assertTrue(
        Files.exists(GuestFiles.folder(supervisor.folder("disk-a.0")).resolve("disk.qcow2")),
        "each its own overlay");
    assertEquals(
        sha256(guest.qcow2Disk()),
        sha256(data.resolve("images/blobs").resolve(sha256(guest.qcow2Disk()))),
        "the image itself was never written");
    assertTrue(
        held.report().images().stream().anyMatch(i -> i.get("image").equals(image)),
        "held, for placement");
  }

  /**
   * User data the guest runs at boot: it counts its boots on its own (FAT) boot disk, and says how
   * many and how large that disk is.
   */
  private static final String COUNT_BOOTS =
      "#!/bin/sh\n"
          + TestGuest.COUNT_BOOTS_ON_DISK
          + """
      echo "boots=$n sectors=$(cat /sys/block/${dev#/dev/}/size)"
      """;

  /** Waits for the guest to say {@code line}, then stops it as a removal does. */
  private void sayThenStop(Task task, String line) {
    eventually(task.id + " says " + line, BOOT, () -> console(task.id).contains(line));
    runtime.stop(task, Duration.ofMinutes(2));
    eventually(task.id + " ended", BOOT, task::ended);
  }

  private Task boot(String id, String image, dev.rota.agentapi.DiskSpec disk, List<TaskView> c) {
    return started(
        id, image, new GuestSpec(null, null, null, COUNT_BOOTS, null, null), disk, null, null, c);
  }

  /**
   * A task of 1 vCPU and 128 MiB started: of VM submission {@code submission}, its {@code disk},
   * resuming from saved memory if {@code resume}.
   */
  private Task started(
      String id,
      String image,
      GuestSpec guestSpec,
      dev.rota.agentapi.DiskSpec disk,
      Long submission,
      Boolean resume,
      List<TaskView> changes) {
    Task task =
        new Task(
            id,
            new TaskSpec(
                id.substring(0, id.indexOf('.')),
                Integer.parseInt(id.substring(id.indexOf('.') + 1)),
                "qemu",
                image,
                List.of(),
                Map.of(),
                Map.of("cpu", 1L, "memory", 128L),
                guestSpec,
                null,
                null,
                submission,
                null,
                null,
                null,
                disk,
                resume),
            changes::add);
    runtime.start(task);
    return task;
  }

  @Test
  void aPersistentDiskIsBootedAgainByTheVmsNextTaskAndGoesWithTheVm() throws Exception {
    String image =
        "http://127.0.0.1:"
            + images.getAddress().getPort()
            + "/disk.qcow2@sha256:"
            + sha256(guest.qcow2Disk());
    dev.rota.agentapi.DiskSpec kept = new dev.rota.agentapi.DiskSpec("keeper-7", true, null);
    List<TaskView> first = new CopyOnWriteArrayList<>();
    List<TaskView> fresh = new CopyOnWriteArrayList<>();
    Task keeper = boot("keeper.0", image, kept, first);
    // Beside it, a VM of the same image whose disk goes with its task, made larger.
    Task plain = boot("plain.0", image, new dev.rota.agentapi.DiskSpec("plain-8", false, 1), fresh);
    sayThenStop(keeper, "ROTA-GUEST-STARTUP boots=1 ");
    // Its own disk, grown to 1 GiB.
    sayThenStop(plain, "ROTA-GUEST-STARTUP boots=1 sectors=2097152");

    List<TaskView> second = new CopyOnWriteArrayList<>();
    Task next = boot("keeper.1", image, kept, second);
    // What its first task wrote is there.
    sayThenStop(next, "ROTA-GUEST-STARTUP boots=2 ");
    assertFalse(console("keeper.1").contains("boots=1"), console("keeper.1"));
    assertFalse(
        Files.exists(GuestFiles.folder(supervisor.folder("keeper.1")).resolve("disk.qcow2")),
        "no overlay in the task's folder");
    PersistentDisks disks = new PersistentDisks(data.resolve("disks"), cache, json);
    assertEquals(
        List.of("keeper-7"),
        disks.list().stream().map(dev.rota.agentapi.HeldDisk::id).toList(),
        "found again, as after an agent restart");
    assertEquals(
        sha256(guest.qcow2Disk()),
        sha256(data.resolve("images/blobs").resolve(sha256(guest.qcow2Disk()))),
        "the image itself was never written");

    assertTrue(disks.delete("keeper-7"));
    assertFalse(Files.exists(disks.overlay("keeper-7")), "gone with its VM");
    assertEquals(List.of(), disks.list());
    assertTrue(disks.delete("keeper-7"), "a disk gone already is no refusal");
  }

  private Task counter(String id, boolean resume, List<TaskView> changes) {
    return started(
        id,
        null,
        new GuestSpec(
            guest.kernel().toUri().toString(),
            guest.initrd().toUri().toString(),
            "quiet",
            TestGuest.COUNTER,
            null,
            null),
        null,
        5L,
        resume,
        changes);
  }

  @Test
  void aSuspendedGuestResumesWhereItWasOnceAndItsMemoryGoes() throws Exception {
    List<TaskView> first = new CopyOnWriteArrayList<>();
    Task before = counter("sleeper.0", false, first);
    eventually("counting", BOOT, () -> console("sleeper.0").contains("count=3 "));

    // Paused in place: its CPUs stop, its QEMU and memory stay; continued, it counts on.
    Qmp qmp = new Qmp(timers);
    Path control = GuestFiles.qmp(supervisor.folder("sleeper.0"));
    runtime.pause(before, true);
    assertTrue(runtime.paused(before));
    assertEquals(
        "VM status: paused", qmp.human(control, "info status", Duration.ofSeconds(3)).strip());
    runtime.pause(before, true); // asked again: as asked already
    runtime.pause(before, false);
    assertFalse(runtime.paused(before));
    assertEquals(
        "VM status: running", qmp.human(control, "info status", Duration.ofSeconds(3)).strip());
    eventually("counting on", BOOT, () -> console("sleeper.0").contains("count=5 "));

    String generation =
        qmp.execute(control, "query-vm-generation-id", null, Duration.ofSeconds(3))
            .path("guid")
            .asText();
    long bytes = runtime.suspend(before);
    assertTrue(before.ended(), "its QEMU ended");
    assertEquals("exited", last(first).state(), last(first).toString());
    assertTrue(last(first).message().contains("suspended"), last(first).message());
    PersistentDisks disks = new PersistentDisks(data.resolve("disks"), cache, json);
    assertEquals(bytes, Files.size(disks.memory("sleeper-5")));
    assertEquals(
        List.of("sleeper-5"), disks.list().stream().map(dev.rota.agentapi.HeldDisk::id).toList());
    String goesOn = TestGuest.countsOn(console("sleeper.0"));

    List<TaskView> second = new CopyOnWriteArrayList<>();
    Task after = counter("sleeper.1", true, second);
    eventually("counting on", BOOT, () -> console("sleeper.1").contains(goesOn));
    assertFalse(console("sleeper.1").contains(TestGuest.UP), "it did not boot again");
    assertFalse(Files.exists(disks.memory("sleeper-5")), "its memory is used once");
    String resumed =
        qmp.execute(
                GuestFiles.qmp(supervisor.folder("sleeper.1")),
                "query-vm-generation-id",
                null,
                Duration.ofSeconds(3))
            .path("guid")
            .asText();
    assertTrue(
        resumed.matches("[0-9a-f-]{36}") && !resumed.equals(generation),
        "a new generation, which tells the guest it may be a copy: " + generation + ", " + resumed);
    assertEquals(List.of(), disks.list());
    sayThenStop(after, TestGuest.countsOn(console("sleeper.1")));
    assertEquals("exited", last(second).state(), "its power button works: " + last(second));

    // Resumed again, there is nothing to resume from.
    List<TaskView> third = new CopyOnWriteArrayList<>();
    Task again = counter("sleeper.2", true, third);
    eventually("failed", BOOT, again::ended);
    assertTrue(
        last(third).message().contains("saved memory is not on this worker"),
        last(third).message());
  }

  @Test
  void aDiskThatDoesNotBootFailsSayingSo() throws Exception {
    Path zeros = data.resolve("zeros.img");
    Files.write(zeros, new byte[1 << 20]);
    List<TaskView> changes = new CopyOnWriteArrayList<>();
    Task task = start("blank.0", zeros.toUri().toString(), null, 1, 64, changes);
    eventually("failed", BOOT, task::ended);
    assertEquals("failed", last(changes).state());
    assertTrue(
        last(changes).message().startsWith("the VM found nothing to boot"),
        last(changes).message());
  }

  @Test
  void aDigestMismatchFailsTheStartBeforeAnythingBoots() throws Exception {
    String image = guest.rawDisk().toUri() + "@sha256:" + "0".repeat(64);
    List<TaskView> changes = new CopyOnWriteArrayList<>();
    Task task = start("pinned.0", image, null, 1, 64, changes);
    eventually("failed", task::ended);
    assertEquals("failed", last(changes).state());
    assertTrue(
        last(changes).message().contains("not the pinned sha256:" + "0".repeat(64)),
        last(changes).message());
    assertTrue(changes.stream().noneMatch(c -> c.state().equals("running")), "nothing booted");
    assertTrue(cache.refs().isEmpty(), "nothing cached");
  }

  @Test
  void anImageThatCannotBeFetchedFailsTheStartWithTheReason() {
    List<TaskView> changes = new CopyOnWriteArrayList<>();
    Task task =
        start(
            "gone.0",
            "http://127.0.0.1:" + images.getAddress().getPort() + "/nothing.qcow2",
            null,
            1,
            64,
            changes);
    eventually("failed", task::ended);
    assertEquals(
        "image http://127.0.0.1:"
            + images.getAddress().getPort()
            + "/nothing.qcow2 answered HTTP 404",
        last(changes).message());
  }

  public static String sha256(Path file) throws Exception {
    return HexFormat.of()
        .formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
  }
}
