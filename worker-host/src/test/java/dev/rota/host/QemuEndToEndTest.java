package dev.rota.host;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.testing.LoopbackRegistry;
import dev.rota.testing.TestGuest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Dev mode booting real VMs: its two agents offer the qemu runtime where QEMU is installed, and the
 * test guest of {@code .ci/qemu} boots under it (software emulation where KVM does not work).
 */
class QemuEndToEndTest extends SharedDevStack {
  private static final Duration BOOT = Duration.ofMinutes(3);
  private static TestGuest guest;

  /**
   * The reference OCI registry on loopback, which the dev agents push snapshots to and pull from.
   */
  private static LoopbackRegistry registry;

  /** Hides the shared start: guests booting under emulation load the machine enough to matter. */
  @BeforeAll
  static void startStack() {
    Path credentials;
    try {
      java.nio.file.Files.createDirectories(dir.resolve("registry"));
      registry = new LoopbackRegistry(dir.resolve("registry"));
      credentials = registry.credentials(dir.resolve("registry"), LoopbackRegistry.PASSWORD);
    } catch (Exception e) {
      throw new IllegalStateException("the registry on loopback did not start", e);
    }
    startStackWithPatientFence(Map.of("rota.dev.agent-registry-auth", credentials.toString()));
    guest = TestGuest.get();
    eventually(
        "the dev agents offer qemu",
        () -> stack.api("GET", "/v1/workers", null).body().contains("\"qemu\""));
  }

  private String direct(String name, String mode, String policy) {
    return "{\"name\":\"" + name + "\"," + directSpec(mode, policy) + "}";
  }

  /** A VM's fields but its name: a guest booted from the test kernel, told {@code mode}. */
  private static String directSpec(String mode, String policy) {
    return "\"runtime\":\"qemu\",\"resources\":{\"cpu\":1,\"memory\":128},\"restartPolicy\":\""
        + policy
        + "\",\"guest\":{\"kernel\":\""
        + guest.kernel().toUri()
        + "\",\"initrd\":\""
        + guest.initrd().toUri()
        + "\",\"kernelArgs\":\"quiet rota.test="
        + mode
        + "\"}";
  }

  /** The QEMU processes this stack's agents run (they work in the stack's folder). */
  private static List<ProcessHandle> guests() {
    return dev.rota.testing.GuestProcesses.under(dir);
  }

  @Test
  void aWorkerRunningGuestsUnderSoftwareEmulationSaysSoInItsView() {
    Map<String, Object> worker = stack.api("GET", "/v1/workers/dev-1", null).map();
    @SuppressWarnings("unchecked")
    Map<String, String> labels = (Map<String, String>) worker.get("labels");
    @SuppressWarnings("unchecked")
    List<String> notices = (List<String>) worker.get("notices");
    boolean emulated = "tcg".equals(labels.get("rota.dev/accel"));
    assertEquals(
        emulated,
        notices.stream()
            .anyMatch(n -> n.startsWith("qemu guests run under software emulation (TCG)")),
        "labels " + labels + ", notices " + notices);
  }

  @Test
  void aSetsGuestMovesOffADrainedWorkerAndRunsOnceOnTheOther() {
    String set =
        "{\"name\":\"guests\",\"replicas\":1,\"template\":{" + directSpec("run", "Always") + "}}";
    assertEquals(201, stack.api("POST", "/v1/vm-sets", set).status());
    eventually(
        "the replica's guest is up",
        BOOT,
        () ->
            stack.api("GET", "/v1/vms/guests-0/logs", null).body().contains("ROTA-GUEST-MODE run"));
    String from = (String) stack.vm("guests-0").get("worker");

    String deadline = java.time.Instant.now().plus(Duration.ofMinutes(10)).toString();
    try {
      RotaClient.Reply drain =
          stack.api(
              "POST", "/v1/workers/" + from + "/drain", "{\"deadline\":\"" + deadline + "\"}");
      assertEquals(200, drain.status(), drain.body());
      eventually(
          "drained, its guest moved",
          BOOT,
          () -> {
            Map<String, Object> vm = stack.vm("guests-0");
            return !from.equals(vm.get("worker"))
                && "running".equals(vm.get("status"))
                && vm.get("movingFrom") == null
                && stack
                    .api("GET", "/v1/workers/" + from, null)
                    .body()
                    .contains("\"state\":\"drained\"");
          });
      // A move starts the new copy first and powers the old one down after (surge first); it is
      // done, and the drain with it, only once the old guest is gone.
      assertEquals(1, guests().size(), "one guest once the move is done");
      eventually(
          "the new copy's guest is up",
          BOOT,
          () ->
              stack
                  .api("GET", "/v1/vms/guests-0/logs", null)
                  .body()
                  .contains("ROTA-GUEST-MODE run"));
    } finally {
      assertEquals(
          200, stack.api("PATCH", "/v1/workers/" + from, "{\"schedulingPaused\":false}").status());
    }
    assertEquals(202, stack.api("DELETE", "/v1/vm-sets/guests", null).status());
    eventually(
        "the set and its guest are gone",
        BOOT,
        () -> stack.api("GET", "/v1/vms/guests-0", null).status() == 404 && guests().isEmpty());
  }

  /**
   * The guests of the rolling set: with one surging, as many as dev mode's two workers have CPUs
   * for on a two-core machine, each guest taking one.
   */
  private static final int ROLLING = 3;

  /** A rollout's new guest counts as available 2 s after it starts. */
  private static final String HEALTHY_SOON = "\"minHealthyTime\":\"2s\"";

  /**
   * Only once it has run for a minute: without a readiness check a guest runs from its QEMU's
   * start, and a guest that exits once booted boots for longer than 2 s on a loaded machine, long
   * enough to pass for healthy.
   */
  private static final String HEALTHY_ONCE_BOOTED =
      "\"minHealthyTime\":\"1m\",\"progressDeadline\":\"1h\"";

  /** A set of {@link #ROLLING} guests told {@code mode}, marked as of {@code template}. */
  private static String rolling(String template, String mode, String update) {
    return "{\"name\":\"roll\",\"replicas\":"
        + ROLLING
        + ",\"maxUnavailable\":1,\"update\":{\"maxSurge\":1,"
        + update
        + "},\"template\":{"
        + directSpec(mode + " rota.template=" + template, "Always")
        + "}}";
  }

  /** This stack's guests, by the template marked on their kernel's command line. */
  private static Map<String, Integer> guestsByTemplate() {
    Map<String, Integer> by = new java.util.TreeMap<>();
    for (ProcessHandle guest : guests()) {
      try {
        String line = java.nio.file.Files.readString(Path.of("/proc", guest.pid() + "", "cmdline"));
        java.util.regex.Matcher m =
            java.util.regex.Pattern.compile("rota\\.template=(\\w+)").matcher(line);
        by.merge(m.find() ? m.group(1) : "?", 1, Integer::sum);
      } catch (java.io.IOException gone) {
        // ended between the listing and the look
      }
    }
    return by;
  }

  private static long readyOfTheSet() {
    Map<?, ?> status = (Map<?, ?>) stack.api("GET", "/v1/vm-sets/roll", null).map().get("status");
    return ((Number) status.get("ready")).longValue();
  }

  /**
   * A set of guests rolled out to a new template (maxUnavailable 1, maxSurge 1), its guests and its
   * ready replicas looked at every 200 ms: never more guests than one over the set, never fewer
   * ready than one under it. Then a template whose guests exit as they boot: its first new replica
   * fails, and the set goes back by itself, the good guests left running.
   */
  @Test
  void aSetOfGuestsRollsOutWithinItsBoundsAndRevertsABrokenTemplateByItself() throws Exception {
    assertEquals(201, stack.api("POST", "/v1/vm-sets", rolling("a", "run", HEALTHY_SOON)).status());
    eventually(
        "the first template's guests up and ready",
        BOOT,
        () -> guestsByTemplate().equals(Map.of("a", ROLLING)) && readyOfTheSet() == ROLLING);

    java.util.concurrent.atomic.AtomicInteger most =
        new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicLong fewestReady =
        new java.util.concurrent.atomic.AtomicLong(Long.MAX_VALUE);
    Runnable look =
        () -> {
          most.accumulateAndGet(
              guestsByTemplate().values().stream().mapToInt(Integer::intValue).sum(), Math::max);
          fewestReady.accumulateAndGet(readyOfTheSet(), Math::min);
        };
    try (ProcessSampler sampler = new ProcessSampler(look)) {
      RotaClient.Reply put =
          stack.api("PUT", "/v1/vm-sets/roll", rolling("b", "run", HEALTHY_SOON));
      assertEquals(200, put.status(), put.body());
      eventually(
          "every guest of the new template, version 2 rolled out whole",
          BOOT.multipliedBy(2),
          () ->
              guestsByTemplate().equals(Map.of("b", ROLLING))
                  && stack
                      .api("GET", "/v1/vm-sets/roll", null)
                      .body()
                      .contains("\"stableVersion\":2"));
    }
    assertTrue(most.get() <= ROLLING + 1, "never more guests than the set and its surge: " + most);
    assertTrue(
        fewestReady.get() >= ROLLING - 1, "never fewer ready than one under: " + fewestReady);

    List<Long> good = guests().stream().map(ProcessHandle::pid).toList();
    fewestReady.set(Long.MAX_VALUE);
    most.set(0);
    try (ProcessSampler sampler = new ProcessSampler(look)) {
      RotaClient.Reply broken =
          stack.api(
              "PUT",
              "/v1/vm-sets/roll",
              rolling("c", "exit:3", HEALTHY_ONCE_BOOTED + ",\"autoRevert\":true"));
      assertEquals(200, broken.status(), broken.body());
      eventually(
          "reverted by itself, every guest of version 2's template again",
          BOOT.multipliedBy(2),
          () ->
              stack.api("GET", "/v1/vm-sets/roll/versions", null).body().contains("\"version\":4")
                  && guestsByTemplate().equals(Map.of("b", ROLLING))
                  && readyOfTheSet() == ROLLING);
    }
    assertTrue(most.get() <= ROLLING + 1, "never more guests than one over: " + most);
    assertTrue(
        fewestReady.get() >= ROLLING - 1, "never fewer ready than one under: " + fewestReady);
    List<Long> after = guests().stream().map(ProcessHandle::pid).toList();
    assertEquals(
        ROLLING - 1,
        good.stream().filter(after::contains).count(),
        "going back left the good guests that ran alone");
    List<Map<String, Object>> versions = stack.items("/v1/vm-sets/roll/versions");
    assertEquals(List.of(4, 3, 2, 1), versions.stream().map(v -> v.get("version")).toList());
    assertEquals("rota (auto-revert)", versions.get(0).get("createdBy"));

    assertEquals(202, stack.api("DELETE", "/v1/vm-sets/roll", null).status());
    eventually(
        "the set and its guests are gone",
        BOOT,
        () -> stack.api("GET", "/v1/vm-sets/roll", null).status() == 404 && guests().isEmpty());
  }

  @AfterAll
  static void stopRegistry() {
    if (registry != null) {
      registry.close();
    }
  }

  /**
   * A stopped VM's persistent disk saved as an image, pushed to the registry on loopback: a new VM
   * of that image on the other worker (the first takes no VMs) pulls it from the registry and boots
   * with what the first VM's guest wrote on it.
   */
  @Test
  void aSnapshotPulledFromTheRegistryOnTheOtherWorkerBootsWithWhatItsGuestWrote() throws Exception {
    assertEquals(
        201,
        stack
            .api(
                "POST",
                "/v1/vms",
                countingBoots("origin", guest.qcow2Disk().toUri().toString(), true))
            .status());
    awaitStartupLine("origin", "boots=1 ");
    String worker = (String) stack.vm("origin").get("worker");
    assertEquals(202, stack.api("POST", "/v1/vms/origin/stop", null).status());
    eventually("stopped", BOOT, () -> "stopped".equals(stack.vm("origin").get("status")));
    String image = "oci://" + registry.address + "/snaps/origin:1";
    RotaClient.Reply saved =
        stack.api("POST", "/v1/vms/origin/snapshot", "{\"image\":\"" + image + "\"}");
    assertEquals(201, saved.status(), saved.body());
    assertEquals(worker, saved.map().get("worker"), "saved where its disk is");

    assertEquals(
        200, stack.api("PATCH", "/v1/workers/" + worker, "{\"schedulingPaused\":true}").status());
    try {
      assertEquals(201, stack.api("POST", "/v1/vms", countingBoots("copy", image, false)).status());
      awaitStartupLine("copy", "boots=2 ");
      assertNotEquals(worker, stack.vm("copy").get("worker"), "on the other worker");
      assertTrue(
          stack.api("GET", "/v1/vms/copy/events", null).body().contains("pulling"),
          "pulled from the registry: " + stack.api("GET", "/v1/vms/copy/events", null).body());
    } finally {
      assertEquals(
          200,
          stack.api("PATCH", "/v1/workers/" + worker, "{\"schedulingPaused\":false}").status());
    }
    assertEquals(202, stack.api("DELETE", "/v1/vms/copy", null).status());
    assertEquals(202, stack.api("DELETE", "/v1/vms/origin", null).status());
    eventually(
        "both deleted",
        BOOT,
        () ->
            stack.api("GET", "/v1/vms/copy", null).status() == 404
                && stack.api("GET", "/v1/vms/origin", null).status() == 404);
  }

  /**
   * A suspended guest's memory pushed with its persistent disk: a VM of that image on the other
   * worker pulls both and goes on from where the first guest was, counting on in its boot, without
   * booting; a VM of the image on another machine (more memory) fails saying so.
   */
  @Test
  void aVmFromASnapshotWithMemoryGoesOnWhereItsGuestWasWithoutBooting() throws Exception {
    assertEquals(
        201,
        stack
            .api("POST", "/v1/vms", counter("warm", guest.qcow2Disk().toUri().toString(), 128))
            .status());
    saying("warm", () -> eventually("counting", BOOT, () -> logs("warm").contains("count=2 ")));
    String worker = (String) stack.vm("warm").get("worker");
    assertEquals(202, stack.api("POST", "/v1/vms/warm/suspend", null).status());
    eventually("suspended", BOOT, () -> "suspended".equals(stack.vm("warm").get("status")));
    String goesOn = TestGuest.countsOn(logs("warm"));
    String image = "oci://" + registry.address + "/snaps/warm:1";
    RotaClient.Reply saved =
        stack.api("POST", "/v1/vms/warm/snapshot", "{\"image\":\"" + image + "\",\"memory\":true}");
    assertEquals(201, saved.status(), saved.body());
    assertTrue(((Number) saved.map().get("memoryBytes")).longValue() > 0, saved.body());

    assertEquals(
        200, stack.api("PATCH", "/v1/workers/" + worker, "{\"schedulingPaused\":true}").status());
    try {
      assertEquals(201, stack.api("POST", "/v1/vms", counter("clone", image, 128)).status());
      saying(
          "clone",
          () ->
              eventually(
                  "going on from the snapshot",
                  BOOT,
                  () ->
                      "running".equals(stack.vm("clone").get("status"))
                          && logs("clone").contains(goesOn)));
      assertNotEquals(worker, stack.vm("clone").get("worker"), "on the other worker");
      assertFalse(logs("clone").contains(TestGuest.UP), "it did not boot: " + logs("clone"));

      assertEquals(201, stack.api("POST", "/v1/vms", counter("misfit", image, 160)).status());
      eventually(
          "a VM of another machine fails saying why",
          BOOT,
          () ->
              stack
                  .api("GET", "/v1/vms/misfit/events", null)
                  .body()
                  .contains("holds the memory of a guest on a machine of 1 CPU, 128 MiB"));
    } finally {
      assertEquals(
          200,
          stack.api("PATCH", "/v1/workers/" + worker, "{\"schedulingPaused\":false}").status());
    }
    for (String vm : List.of("misfit", "clone", "warm")) {
      assertEquals(202, stack.api("DELETE", "/v1/vms/" + vm, null).status());
    }
    eventually(
        "all deleted",
        BOOT,
        () ->
            Stream.of("misfit", "clone", "warm")
                .allMatch(vm -> stack.api("GET", "/v1/vms/" + vm, null).status() == 404));
  }

  /**
   * A VM of {@code image}, on a persistent disk, whose guest counts ({@link TestGuest#COUNTER}),
   * never restarted.
   */
  private static String counter(String name, String image, int memory) throws Exception {
    return qemuVm(name, image, memory, true, TestGuest.COUNTER, Map.of("restartPolicy", "Never"));
  }

  /** A VM of {@code image} whose guest counts its boots on its boot disk ({@link #COUNT_BOOTS}). */
  private static String countingBoots(String name, String image, boolean persistent)
      throws Exception {
    return qemuVm(name, image, 128, persistent, COUNT_BOOTS, Map.of());
  }

  /** A {@code qemu} VM of one CPU, as {@code POST /v1/vms} takes it, with {@code more} fields. */
  private static String qemuVm(
      String name,
      String image,
      int memory,
      boolean persistent,
      String userData,
      Map<String, Object> more)
      throws Exception {
    Map<String, Object> vm = new java.util.HashMap<>(more);
    vm.putAll(
        Map.of(
            "name",
            name,
            "runtime",
            "qemu",
            "image",
            image,
            "resources",
            Map.of("cpu", 1, "memory", memory),
            "disk",
            Map.of("persistent", persistent),
            "guest",
            Map.of("userData", userData)));
    return new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(vm);
  }

  /** Waits until {@code vm} runs and its guest's startup line says {@code what}. */
  private static void awaitStartupLine(String vm, String what) {
    saying(
        vm,
        () ->
            eventually(
                vm + " says " + what,
                BOOT,
                () ->
                    "running".equals(stack.vm(vm).get("status"))
                        && logs(vm).contains("ROTA-GUEST-STARTUP " + what)));
  }

  @Test
  void aGuestThatPowersOffIsDeletedAfterItsTtlDiskAndAll() {
    String vm =
        "{\"name\":\"brief\",\"runtime\":\"qemu\",\"image\":\""
            + guest.qcow2Disk().toUri()
            + "\",\"resources\":{\"cpu\":1,\"memory\":128},\"ttlAfterFinished\":\"1s\","
            + "\"guest\":{\"userData\":\"#cloud-config\\n# rota.test=poweroff\\n\"}}";
    assertEquals(201, stack.api("POST", "/v1/vms", vm).status());
    eventually(
        "it booted, powered off and was deleted",
        BOOT,
        () -> stack.api("GET", "/v1/vms/brief", null).status() == 404);
    // The ended task's folder is kept until its VM goes; then the term removes it as no VM's.
    eventually(
        "its task folder and disk overlay are removed from its worker",
        BOOT,
        () -> left("brief").isEmpty());
  }

  /**
   * A guest's user data that counts its boots on its own (FAT) boot disk, and on its data volume
   * {@code workspace} (found by its serial: a number in its first bytes), and says how many: its
   * disks' content, made visible on the console.
   */
  private static final String COUNT_BOOTS =
      "#!/bin/sh\n"
          + "mkdir -p /d\n"
          + "for dev in /dev/vd?; do mount -t vfat $dev /d 2>/dev/null || continue;"
          + " [ -f /d/syslinux.cfg ] && break; umount /d; done\n"
          + "n=$(( $(cat /d/boots 2>/dev/null || echo 0) + 1 ))\n"
          + "echo $n > /d/boots; sync\n"
          + "for b in /sys/block/vd?; do"
          + " [ \"$(cat $b/serial 2>/dev/null)\" = workspace ] && vol=/dev/${b##*/}; done\n"
          + "v=$(dd if=$vol bs=16 count=1 2>/dev/null | tr -dc 0-9)\n"
          + "v=$(( ${v:-0} + 1 ))\n"
          + "printf '%-16s' $v | dd of=$vol bs=16 count=1 conv=notrunc 2>/dev/null; sync\n"
          + "echo boots=$n volume=$v\n";

  /**
   * A persistent disk stays on the worker of the VM's first task: a stop and start, and a restart,
   * place the VM back there and boot it from what its guest last wrote; deleting the VM deletes the
   * disk. Its data volume goes where it goes, and outlives it until deleted itself.
   */
  @Test
  void aPersistentDiskKeepsWhatItsGuestWroteAcrossStopStartAndRestartAndGoesWithTheVm()
      throws Exception {
    String vm =
        new com.fasterxml.jackson.databind.ObjectMapper()
            .writeValueAsString(
                Map.of(
                    "name",
                    "devbox",
                    "runtime",
                    "qemu",
                    "image",
                    guest.qcow2Disk().toUri().toString(),
                    "resources",
                    Map.of("cpu", 1, "memory", 128),
                    "disk",
                    Map.of("persistent", true),
                    "migration",
                    "restart", // a drain copies its disk at the deadline (the live way is below)
                    "volumes",
                    List.of(Map.of("name", "workspace")),
                    "guest",
                    Map.of("userData", COUNT_BOOTS)));
    assertEquals(
        201, stack.api("POST", "/v1/volumes", "{\"name\":\"workspace\",\"sizeGi\":1}").status());
    assertEquals(201, stack.api("POST", "/v1/vms", vm).status());
    awaitBoots("devbox", 1);
    String worker = (String) stack.vm("devbox").get("worker");
    assertEquals(worker, stack.vm("devbox").get("diskOn"), "its disk is where it first ran");
    assertFalse(disksOf("devbox").isEmpty(), "kept outside its task's folder");
    assertEquals(
        List.of("devbox"),
        stack.api("GET", "/v1/workers/" + worker, null).map().get("disks"),
        "its worker's view names it");

    assertEquals(202, stack.api("POST", "/v1/vms/devbox/stop", null).status());
    eventually("stopped", BOOT, () -> "stopped".equals(stack.vm("devbox").get("status")));
    assertEquals(202, stack.api("POST", "/v1/vms/devbox/start", null).status());
    awaitBoots("devbox", 2);
    assertEquals(worker, stack.vm("devbox").get("worker"), "placed back with its disk");

    assertEquals(202, stack.api("POST", "/v1/vms/devbox/restart", null).status());
    awaitBoots("devbox", 3);
    assertEquals(worker, stack.vm("devbox").get("worker"));

    // A drain whose deadline passes moves it to the other worker, its disk copied there.
    String moved;
    try {
      RotaClient.Reply drain =
          stack.api(
              "POST",
              "/v1/workers/" + worker + "/drain",
              "{\"deadline\":\"" + java.time.Instant.now().plusSeconds(1) + "\"}");
      assertEquals(200, drain.status(), drain.body());
      awaitBoots("devbox", 4);
      moved = (String) stack.vm("devbox").get("worker");
      assertNotEquals(worker, moved, "moved off the drained worker");
      assertEquals(moved, stack.vm("devbox").get("diskOn"), "its disk is where it runs now");
      assertFalse(disksOf("devbox", moved).isEmpty(), "copied to its new worker");
      assertEquals(
          moved,
          stack.api("GET", "/v1/volumes/workspace", null).map().get("worker"),
          "its volume copied there with it");
    } finally {
      assertEquals(
          200,
          stack.api("PATCH", "/v1/workers/" + worker, "{\"schedulingPaused\":false}").status());
    }

    assertEquals(202, stack.api("DELETE", "/v1/vms/devbox", null).status());
    eventually(
        "deleted, its disk with it",
        BOOT,
        () ->
            stack.api("GET", "/v1/vms/devbox", null).status() == 404
                && disksOf("devbox", moved).isEmpty());
    assertEquals(List.of(), stack.api("GET", "/v1/workers/" + moved, null).map().get("disks"));
    assertEquals(
        List.of("workspace"),
        stack.api("GET", "/v1/workers/" + moved, null).map().get("volumes"),
        "its volume outlives it");
    assertFalse(disksOf("workspace", moved).isEmpty());
    assertEquals(204, stack.api("DELETE", "/v1/volumes/workspace", null).status());
    eventually(
        "the volume deleted on its worker", BOOT, () -> disksOf("workspace", moved).isEmpty());
  }

  /**
   * A running guest with a persistent disk moves live off a drained worker: its next task on the
   * other worker takes it, memory and disk, from the old one, and it counts on in the same boot,
   * never booting again. The drained worker is left with nothing of it running.
   */
  @Test
  void aDrainMovesARunningGuestLiveAndItCountsOnInTheSameBoot() throws Exception {
    String vm =
        new com.fasterxml.jackson.databind.ObjectMapper()
            .writeValueAsString(
                Map.of(
                    "name",
                    "roamer",
                    "runtime",
                    "qemu",
                    "image",
                    guest.qcow2Disk().toUri().toString(),
                    "resources",
                    Map.of("cpu", 1, "memory", 128),
                    "disk",
                    Map.of("persistent", true),
                    "ports",
                    List.of(Map.of("name", "echo", "port", 7)),
                    "guest",
                    Map.of("userData", TestGuest.COUNTER)));
    RotaClient.Reply made = stack.api("POST", "/v1/vms", vm);
    assertEquals(201, made.status(), made.body());
    assertEquals("live", made.map().get("migration"), "the default for a persistent disk");
    saying("roamer", () -> eventually("counting", BOOT, () -> logs("roamer").contains("count=3 ")));
    String worker = (String) stack.vm("roamer").get("worker");
    String before = TestGuest.countsOn(logs("roamer"));
    String bootId = before.substring(before.indexOf("boot=") + "boot=".length());
    // A connection to its forwarded port, held across the move: it ends with the old copy, at most.
    Forward held = Forward.open(stack.base(), "roamer", "echo");
    assertEquals("before\n", held.echo("before\n"));

    String moved;
    try {
      RotaClient.Reply drain =
          stack.api(
              "POST",
              "/v1/workers/" + worker + "/drain",
              "{\"deadline\":\"" + java.time.Instant.now().plusSeconds(3600) + "\"}");
      assertEquals(200, drain.status(), drain.body());
      saying(
          "roamer",
          () ->
              eventually(
                  "moved live, counting on",
                  BOOT,
                  () ->
                      !worker.equals(stack.vm("roamer").get("worker"))
                          && "running".equals(stack.vm("roamer").get("status"))
                          && logs("roamer").matches("(?s).*count=\\d+ boot=" + bootId + ".*")));
      moved = (String) stack.vm("roamer").get("worker");
      assertFalse(
          logs("roamer").contains(TestGuest.UP), "it did not boot again: " + logs("roamer"));
      assertEquals(moved, stack.vm("roamer").get("diskOn"), "its disk is where it runs now");
      assertFalse(disksOf("roamer", moved).isEmpty(), "its disk was carried there");
      assertEquals(1, ((Number) stack.vm("roamer").get("restartCount")).intValue());
      eventually(
          "its old task gone from the drained worker",
          BOOT,
          () -> left("roamer").stream().noneMatch(f -> f.contains("/" + worker)));
      assertTrue(
          stack
              .api("GET", "/v1/vms/roamer/events", null)
              .body()
              .contains("moving from worker " + worker),
          "its events say it moved");
      // Its port is reached where it runs now: a new connection, as the held one ended (at most).
      try (Forward again = Forward.open(stack.base(), "roamer", "echo")) {
        assertEquals("after\n", again.echo("after\n"));
      }
      held.close();
    } finally {
      assertEquals(
          200,
          stack.api("PATCH", "/v1/workers/" + worker, "{\"schedulingPaused\":false}").status());
    }
    assertEquals(202, stack.api("DELETE", "/v1/vms/roamer", null).status());
    eventually(
        "deleted, its disk with it",
        BOOT,
        () ->
            stack.api("GET", "/v1/vms/roamer", null).status() == 404
                && disksOf("roamer", moved).isEmpty());
  }

  /**
   * A guest claimed from a warm pool is handed the user data of its claim while it runs: its guest
   * agent writes it and runs it, once, and the VM's events say so. At its max of one the pool boots
   * no other.
   */
  @Test
  void aGuestClaimedFromAPoolRunsTheUserDataOfItsClaim() throws Exception {
    String pool =
        "{\"name\":\"warm\",\"minReady\":1,\"max\":1,\"template\":{"
            + directSpec("run", "Never")
            + "}}";
    assertEquals(201, stack.api("POST", "/v1/pools", pool).status());
    eventually(
        "a guest ready in the pool",
        BOOT,
        () ->
            ((Map<?, ?>) stack.api("GET", "/v1/pools/warm", null).map().get("status"))
                .get("ready")
                .equals(1));
    String claim =
        new com.fasterxml.jackson.databind.ObjectMapper()
            .writeValueAsString(
                Map.of(
                    "name",
                    "claimed",
                    "fromPool",
                    "warm",
                    "guest",
                    Map.of("userData", "#!/bin/sh\necho ROTA-CLAIMED-$((6*7)) > /dev/console\n")));
    RotaClient.Reply claimed = stack.api("POST", "/v1/vms", claim);
    assertEquals(201, claimed.status(), claimed.body());
    try {
      eventually(
          "the claim's script ran in the guest",
          BOOT,
          () -> logs("claimed").contains("ROTA-CLAIMED-42"));
    } catch (AssertionError e) {
      throw new AssertionError(stack.api("GET", "/v1/vms/claimed/events", null).body(), e);
    }
    // The guest runs the script before its agent answers the delivery, which the events then say.
    eventually(
        "its events say it was delivered",
        BOOT,
        () ->
            stack
                .api("GET", "/v1/vms/claimed/events", null)
                .body()
                .contains("user data delivered to task warm-0.0"));
    assertEquals(0, ((Number) stack.vm("claimed").get("restartCount")).intValue(), "no boot");
    assertFalse(claimed.body().contains("ROTA-CLAIMED"), "its view does not show it");

    assertEquals(202, stack.api("DELETE", "/v1/pools/warm", null).status());
    assertEquals(202, stack.api("DELETE", "/v1/vms/claimed", null).status());
    eventually(
        "the VM and the pool gone",
        BOOT,
        () ->
            stack.api("GET", "/v1/vms/claimed", null).status() == 404
                && stack.api("GET", "/v1/pools/warm", null).status() == 404);
  }

  /**
   * A pool that keeps its guests suspended boots one and suspends it once its guest agent answers;
   * a claim resumes it where it was saved, without booting it again, and hands it the claim's user
   * data. At its max of one the pool boots no other.
   */
  @Test
  void aGuestClaimedFromASuspendedPoolResumesWithoutBootingAndRunsItsUserData() throws Exception {
    com.fasterxml.jackson.databind.ObjectMapper json =
        new com.fasterxml.jackson.databind.ObjectMapper();
    String pool =
        json.writeValueAsString(
            Map.of(
                "name",
                "sleepers",
                "minReady",
                1,
                "max",
                1,
                "standby",
                "suspended",
                "template",
                Map.of(
                    "runtime",
                    "qemu",
                    "resources",
                    Map.of("cpu", 1, "memory", 128),
                    "readiness",
                    Map.of("guestAgent", true, "period", "1s"),
                    "guest",
                    guest.counting())));
    assertEquals(201, stack.api("POST", "/v1/pools", pool).status());
    try {
      eventually(
          "a guest suspended in the pool",
          BOOT,
          () ->
              ((Map<?, ?>) stack.api("GET", "/v1/pools/sleepers", null).map().get("status"))
                  .get("ready")
                  .equals(1));
    } catch (AssertionError e) {
      throw new AssertionError(stack.api("GET", "/v1/vms/sleepers-0/events", null).body(), e);
    }
    assertEquals("suspended", stack.vm("sleepers-0").get("status"));
    eventually("its task is gone from its worker", BOOT, () -> left("sleepers-0").isEmpty());

    String claim =
        json.writeValueAsString(
            Map.of(
                "name",
                "woken",
                "fromPool",
                "sleepers",
                "guest",
                Map.of("userData", "#!/bin/sh\necho ROTA-WOKEN-$((6*7)) > /dev/console\n")));
    RotaClient.Reply claimed = stack.api("POST", "/v1/vms", claim);
    assertEquals(201, claimed.status(), claimed.body());
    assertEquals("pending", stack.api("GET", "/v1/vms/woken", null).map().get("status"));
    try {
      eventually(
          "resumed, counting, and the claim's script ran",
          BOOT,
          () ->
              "running".equals(stack.vm("woken").get("status"))
                  && logs("woken").contains("count=")
                  && logs("woken").contains("ROTA-WOKEN-42"));
    } catch (AssertionError e) {
      throw new AssertionError(
          stack.vm("woken") + "\n" + stack.api("GET", "/v1/vms/woken/events", null).body(), e);
    }
    assertEquals(1, ((Number) stack.vm("woken").get("restartCount")).intValue());
    assertFalse(logs("woken").contains(TestGuest.UP), "it did not boot again: " + logs("woken"));
    assertTrue(
        stack.api("GET", "/v1/vms/woken/logs?previous=true", null).body().contains(TestGuest.UP),
        "it booted once, in the pool");
    eventually(
        "its events say the data was delivered",
        BOOT,
        () ->
            stack
                .api("GET", "/v1/vms/woken/events", null)
                .body()
                .contains("user data delivered to task sleepers-0.1"));

    assertEquals(202, stack.api("DELETE", "/v1/pools/sleepers", null).status());
    assertEquals(202, stack.api("DELETE", "/v1/vms/woken", null).status());
    eventually(
        "the VM and the pool gone",
        BOOT,
        () ->
            stack.api("GET", "/v1/vms/woken", null).status() == 404
                && stack.api("GET", "/v1/pools/sleepers", null).status() == 404);
  }

  /**
   * A guest booted from a kernel alone (its whole state in memory) is paused in place and run on,
   * then suspended through the API: its QEMU ends and its worker holds nothing of it but its saved
   * memory; with that worker paused, a start resumes it on the other, its memory copied there,
   * counting on from where it was in the same boot.
   */
  @Test
  void aSuspendedGuestFreesItsWorkerAndResumesElsewhereCountingOnInTheSameBoot() throws Exception {
    String vm =
        new com.fasterxml.jackson.databind.ObjectMapper()
            .writeValueAsString(
                Map.of(
                    "name",
                    "sleeper",
                    "runtime",
                    "qemu",
                    "resources",
                    Map.of("cpu", 1, "memory", 128),
                    "guest",
                    guest.counting()));
    assertEquals(201, stack.api("POST", "/v1/vms", vm).status());
    try {
      eventually("counting", BOOT, () -> logs("sleeper").contains("count=3 "));
    } catch (AssertionError e) {
      throw new AssertionError(
          stack.vm("sleeper") + "\n" + stack.api("GET", "/v1/vms/sleeper/events", null).body(), e);
    }
    String worker = (String) stack.vm("sleeper").get("worker");

    // Paused in place, then run on: the same task, counting on.
    assertEquals(202, stack.api("POST", "/v1/vms/sleeper/suspend?inPlace=true", null).status());
    eventually("paused", BOOT, () -> "paused".equals(stack.vm("sleeper").get("status")));
    assertEquals(202, stack.api("POST", "/v1/vms/sleeper/start", null).status());
    eventually("running on", BOOT, () -> "running".equals(stack.vm("sleeper").get("status")));
    assertEquals(0, ((Number) stack.vm("sleeper").get("restartCount")).intValue());
    eventually("counting on", BOOT, () -> logs("sleeper").contains("count=5 "));

    assertEquals(202, stack.api("POST", "/v1/vms/sleeper/suspend", null).status());
    eventually("suspended", BOOT, () -> "suspended".equals(stack.vm("sleeper").get("status")));
    assertEquals(worker, stack.vm("sleeper").get("diskOn"), "its memory is kept where it ran");
    eventually("its task is gone from its worker", BOOT, () -> left("sleeper").isEmpty());
    assertTrue(
        stack.api("GET", "/v1/vms/sleeper/events", null).body().contains("of memory saved on"),
        "its events say where its memory is");
    String goesOn = TestGuest.countsOn(logs("sleeper"));

    // Its worker takes no VMs now: it resumes on the other, its memory copied there.
    assertEquals(
        200, stack.api("PATCH", "/v1/workers/" + worker, "{\"schedulingPaused\":true}").status());
    try {
      assertEquals(202, stack.api("POST", "/v1/vms/sleeper/start", null).status());
      eventually(
          "resumed, counting on",
          BOOT,
          () ->
              "running".equals(stack.vm("sleeper").get("status"))
                  && logs("sleeper").contains(goesOn));
    } finally {
      assertEquals(
          200,
          stack.api("PATCH", "/v1/workers/" + worker, "{\"schedulingPaused\":false}").status());
    }
    assertNotEquals(worker, stack.vm("sleeper").get("worker"), "resumed on the other worker");
    assertFalse(logs("sleeper").contains(TestGuest.UP), "it did not boot again");
    assertEquals(null, stack.vm("sleeper").get("diskOn"), "its memory is used up");

    assertEquals(202, stack.api("DELETE", "/v1/vms/sleeper", null).status());
    eventually("deleted", BOOT, () -> stack.api("GET", "/v1/vms/sleeper", null).status() == 404);
  }

  /**
   * A connection to a VM's forwarded port through the API's WebSocket ({@code rota vm
   * port-forward}'s way in).
   */
  static final class Forward implements AutoCloseable {
    private final java.net.http.WebSocket socket;
    private final java.util.concurrent.LinkedBlockingQueue<byte[]> received =
        new java.util.concurrent.LinkedBlockingQueue<>();
    private final java.util.concurrent.CompletableFuture<Void> opened =
        new java.util.concurrent.CompletableFuture<>();

    private Forward(String base, String vm, String port) {
      socket =
          java.net.http.HttpClient.newHttpClient()
              .newWebSocketBuilder()
              .buildAsync(
                  java.net.URI.create(
                      base.replaceFirst("^http", "ws")
                          + "/v1/vms/"
                          + vm
                          + "/ports/"
                          + port
                          + "/forward"),
                  new java.net.http.WebSocket.Listener() {
                    @Override
                    public java.util.concurrent.CompletionStage<?> onBinary(
                        java.net.http.WebSocket ws, java.nio.ByteBuffer data, boolean last) {
                      byte[] bytes = new byte[data.remaining()];
                      data.get(bytes);
                      if (!opened.isDone()) {
                        opened.complete(null); // the server's first message: the way in is open
                      } else {
                        received.add(bytes);
                      }
                      ws.request(1);
                      return null;
                    }

                    @Override
                    public java.util.concurrent.CompletionStage<?> onClose(
                        java.net.http.WebSocket ws, int code, String reason) {
                      opened.completeExceptionally(
                          new AssertionError("closed: " + code + " " + reason));
                      received.add(new byte[0]);
                      return null;
                    }
                  })
              .join();
    }

    static Forward open(String base, String vm, String port) throws Exception {
      Forward f = new Forward(base, vm, port);
      f.opened.get(1, java.util.concurrent.TimeUnit.MINUTES);
      return f;
    }

    /** What comes back for {@code text} sent through. */
    String echo(String text) throws Exception {
      socket
          .sendBinary(
              java.nio.ByteBuffer.wrap(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)),
              true)
          .get(1, java.util.concurrent.TimeUnit.MINUTES);
      java.io.ByteArrayOutputStream back = new java.io.ByteArrayOutputStream();
      while (back.size() < text.length()) {
        byte[] part = received.poll(1, java.util.concurrent.TimeUnit.MINUTES);
        if (part == null || part.length == 0) {
          break; // nothing more, or closed
        }
        back.write(part);
      }
      return back.toString(java.nio.charset.StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
      socket.abort();
    }
  }

  /** What {@code vm}'s current task has written to its console. */
  private static String logs(String vm) {
    return stack.api("GET", "/v1/vms/" + vm + "/logs", null).body();
  }

  /** Waits for {@code vm}'s current guest to say it booted {@code n} times from its disk. */
  private static void awaitBoots(String vm, int n) {
    saying(vm, () -> awaitBootsOnly(vm, n));
  }

  /** Runs {@code wait}; should it fail, says what {@code vm} is, wrote and went through. */
  private static void saying(String vm, Runnable wait) {
    try {
      wait.run();
    } catch (AssertionError e) {
      throw new AssertionError(
          stack.vm(vm)
              + "\n"
              + stack.api("GET", "/v1/vms/" + vm + "/logs", null).body()
              + "\n"
              + stack.api("GET", "/v1/vms/" + vm + "/events", null).body(),
          e);
    }
  }

  private static void awaitBootsOnly(String vm, int n) {
    eventually(
        vm + " booted from its disk for the " + n + ". time",
        BOOT,
        () ->
            "running".equals(stack.vm(vm).get("status"))
                && stack
                    .api("GET", "/v1/vms/" + vm + "/logs", null)
                    .body()
                    .matches("(?s).*ROTA-GUEST-STARTUP boots=" + n + " volume=" + n + "\\s.*"));
  }

  /** The persistent disks of {@code vm} on the stack's workers. */
  private static List<String> disksOf(String vm) {
    return disksOf(vm, "");
  }

  /** The persistent disks of {@code vm} on the stack's workers whose names begin {@code worker}. */
  private static List<String> disksOf(String vm, String worker) {
    try (var files = java.nio.file.Files.walk(dir)) {
      return files
          .map(Path::toString)
          .filter(
              f ->
                  f.contains("/" + worker)
                      && f.contains("/disks/" + vm + "-")
                      && f.endsWith("disk.qcow2"))
          .toList();
    } catch (java.io.IOException | java.io.UncheckedIOException e) {
      return List.of("being removed: " + e.getMessage());
    }
  }

  /** The files of {@code vm}'s tasks on the stack's workers. */
  private static List<String> left(String vm) {
    try (var files = java.nio.file.Files.walk(dir)) {
      return files.map(Path::toString).filter(f -> f.contains("/tasks/" + vm + ".")).toList();
    } catch (java.io.IOException | java.io.UncheckedIOException e) {
      return List.of("being removed: " + e.getMessage());
    }
  }

  @Test
  void aPanickingGuestFailsSayingSoAndIsRestartedOnTheOtherWorkerUnderOnFailure() {
    assertEquals(
        201, stack.api("POST", "/v1/vms", direct("panicky", "panic", "OnFailure")).status());
    String[] first = new String[1];
    eventually(
        "placed",
        BOOT,
        () -> {
          Map<String, Object> vm = stack.vm("panicky");
          first[0] = (String) vm.get("worker");
          return first[0] != null && ((Number) vm.get("restartCount")).intValue() == 0;
        });
    eventually(
        "failed once and placed again",
        BOOT,
        () -> {
          Map<String, Object> vm = stack.vm("panicky");
          return ((Number) vm.get("restartCount")).intValue() >= 1 && vm.get("worker") != null;
        });
    try {
      RotaClient.Reply events = stack.api("GET", "/v1/vms/panicky/events?limit=100", null);
      assertTrue(
          events.body().contains("the guest panicked: Kernel panic - not syncing"), events.body());
      assertNotEquals(
          first[0],
          stack.vm("panicky").get("worker"),
          "restarted on the other worker: " + events.body());
    } finally {
      assertEquals(202, stack.api("DELETE", "/v1/vms/panicky", null).status());
      eventually(
          "gone",
          BOOT,
          () -> stack.api("GET", "/v1/vms/panicky", null).status() == 404 && guests().isEmpty());
    }
  }

  @Test
  void aVmBootsFromItsImageWithItsUserDataAndTheNextVmOfThatImageGoesWhereItIsHeld() {
    String image = guest.qcow2Disk().toUri().toString();
    String first =
        "{\"name\":\"img-a\",\"runtime\":\"qemu\",\"image\":\""
            + image
            + "\",\"resources\":{\"cpu\":1,\"memory\":128},"
            + "\"labels\":{\"rota.dev/worker\":\"dev-2\"},\"guest\":{\"userData\":\"#cloud-config\\n# rota.test=poweroff\\n\"}}";
    assertEquals(201, stack.api("POST", "/v1/vms", first).status());
    eventually(
        "it booted and powered off", BOOT, () -> "stopped".equals(stack.vm("img-a").get("status")));
    assertEquals(0, stack.vm("img-a").get("exitCode"));
    eventually(
        "dev-2 says it holds the image",
        () -> stack.api("GET", "/v1/workers/dev-2", null).body().contains(image));

    // Both workers are empty, so the profile alone would choose dev-1, the name that sorts first.
    String second =
        "{\"name\":\"img-b\",\"runtime\":\"qemu\",\"image\":\""
            + image
            + "\",\"resources\":{\"cpu\":1,\"memory\":128},"
            + "\"guest\":{\"userData\":\"#cloud-config\\n# rota.test=run\\n\"}}";
    assertEquals(201, stack.api("POST", "/v1/vms", second).status());
    saying(
        "img-b",
        () -> eventually("running", BOOT, () -> "running".equals(stack.vm("img-b").get("status"))));
    assertEquals("dev-2", stack.vm("img-b").get("worker"), "placed where its image is");
    eventually(
        "its console is its log",
        BOOT,
        () -> stack.api("GET", "/v1/vms/img-b/logs", null).body().contains("ROTA-GUEST-MODE run"));
    String console = stack.api("GET", "/v1/vms/img-b/logs", null).body();
    assertTrue(console.contains("ROTA-GUEST-UP cpus=1"), console);
    assertTrue(console.contains("ROTA-GUEST-USER-DATA #cloud-config"), console);

    assertEquals(202, stack.api("POST", "/v1/vms/img-b/stop", null).status());
    eventually(
        "stopped by its power button",
        BOOT,
        () -> "stopped".equals(stack.vm("img-b").get("status")));
  }

  @Test
  void aPrefetchedImageIsHeldByEveryQemuWorkerBeforeAVmOfItStarts() throws Exception {
    // Pinned, so that it is an image of its own among this class's VMs (held by name).
    String image =
        guest.qcow2Disk().toUri()
            + "@sha256:"
            + java.util.HexFormat.of()
                .formatHex(
                    java.security.MessageDigest.getInstance("SHA-256")
                        .digest(java.nio.file.Files.readAllBytes(guest.qcow2Disk())));
    RotaClient.Reply created =
        stack.api("POST", "/v1/images/prefetch", "{\"image\":\"" + image + "\"}");
    assertEquals(201, created.status(), created.body());
    String name = (String) created.map().get("name");
    try {
      eventually(
          "both qemu workers hold it",
          BOOT,
          () -> {
            Map<String, Object> p = stack.api("GET", "/v1/images/prefetch/" + name, null).map();
            return ((Number) p.get("held")).intValue() == 2
                && ((List<?>) p.get("workers")).size() == 2;
          });
      for (String worker : List.of("dev-1", "dev-2")) {
        assertTrue(
            stack.api("GET", "/v1/workers/" + worker, null).body().contains(image),
            worker + " shows the image among those it holds");
      }
      String vm =
          "{\"name\":\"prefetched\",\"runtime\":\"qemu\",\"image\":\""
              + image
              + "\",\"resources\":{\"cpu\":1,\"memory\":128},"
              + "\"guest\":{\"userData\":\"#cloud-config\\n# rota.test=poweroff\\n\"}}";
      assertEquals(201, stack.api("POST", "/v1/vms", vm).status());
      eventually(
          "it booted from the image held and powered off",
          BOOT,
          () -> "stopped".equals(stack.vm("prefetched").get("status")));
      String events = stack.api("GET", "/v1/vms/prefetched/events?limit=100", null).body();
      assertTrue(!events.contains("pulling"), "no fetch on its start: " + events);
    } finally {
      stack.api("DELETE", "/v1/images/prefetch/" + name, null);
      stack.api("DELETE", "/v1/vms/prefetched", null);
    }
  }
}
