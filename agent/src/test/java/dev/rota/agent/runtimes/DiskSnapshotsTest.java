package dev.rota.agent.runtimes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rota.agent.images.HeldImages;
import dev.rota.agent.images.ImageCache;
import dev.rota.agent.images.OciRegistry;
import dev.rota.agentapi.DiskSnapshot;
import dev.rota.testing.LoopbackRegistry;
import dev.rota.testing.TestGuest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A persistent disk saved as an image: flattened with the image under it, pushed to a real OCI
 * registry on loopback, kept in this worker's cache, and pulled by another worker's cache with what
 * its guest wrote; refused while the disk is being read whole already.
 */
class DiskSnapshotsTest {
  @TempDir static Path shared;
  @TempDir Path data;
  static LoopbackRegistry registry;
  private final ObjectMapper json = new ObjectMapper();

  @BeforeAll
  static void start() throws Exception {
    registry = new LoopbackRegistry(shared);
  }

  @AfterAll
  static void stop() {
    if (registry != null) {
      registry.close();
    }
  }

  private ImageCache cache(String name) throws Exception {
    Path dir = data.resolve(name);
    return new ImageCache(
        dir.resolve("images"),
        1L << 30,
        json,
        Clock.systemUTC(),
        new HeldImages(dir.resolve("held.json"), json, Clock.systemUTC()),
        registry());
  }

  private OciRegistry registry() throws Exception {
    return new OciRegistry(
        json,
        OciRegistry.credentials(json, registry.credentials(data, LoopbackRegistry.PASSWORD)),
        Set.of());
  }

  private static String run(String... argv) throws Exception {
    Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor(), String.join(" ", argv) + ": " + out);
    return out;
  }

  /** The disk a VM's first task made on this worker: an overlay of the guest's image. */
  private static Path overlay(PersistentDisks disks, ImageCache cache, TestGuest guest, String id)
      throws Exception {
    ImageCache.Lease base = cache.acquire(guest.qcow2Disk().toUri().toString(), p -> {});
    Path overlay = disks.overlay(id);
    Files.createDirectories(overlay.getParent());
    run(
        "qemu-img",
        "create",
        "-q",
        "-f",
        "qcow2",
        "-F",
        "qcow2",
        "-b",
        base.path().toString(),
        overlay.toString());
    return overlay;
  }

  private DiskSnapshots snapshots(PersistentDisks disks, ImageCache here) throws Exception {
    return new DiskSnapshots(
        disks,
        here,
        registry(),
        () -> new QemuHost(Path.of("qemu-system-x86_64"), Path.of("qemu-img"), "tcg", "test"));
  }

  @Test
  void aDiskAtRestIsPushedKeptHereAndPulledElsewhereWithWhatItsGuestWrote() throws Exception {
    TestGuest guest = TestGuest.get();
    ImageCache here = cache("here");
    ImageCache elsewhere = cache("elsewhere");
    PersistentDisks disks = new PersistentDisks(data.resolve("disks"), here, json);
    // The disk a VM's first task made, an overlay of its image, and what its guest then wrote.
    Path overlay = overlay(disks, here, guest, "devbox-7");
    run("qemu-io", "-c", "write -P 0x5a 1M 64k", overlay.toString());
    DiskSnapshots snapshots = snapshots(disks, here);
    String image = "oci://" + registry.address + "/snaps/devbox:1";
    DiskSnapshot made = snapshots.snapshot("devbox-7", image, false);
    assertEquals(image, made.image());
    assertTrue(made.digest().matches("sha256:[0-9a-f]{64}"), made.digest());
    assertTrue(here.refs().containsKey(image), "kept in this worker's cache: " + here.refs());
    assertEquals(
        List.of(),
        Files.list(data.resolve("here").resolve("images"))
            .filter(f -> f.getFileName().toString().endsWith(".part"))
            .toList(),
        "nothing half-made left");

    ImageCache.Lease pulled = elsewhere.acquire(image, p -> {});
    assertFalse(
        run("qemu-img", "info", "--output=json", pulled.path().toString())
            .contains("backing-filename"),
        "it stands alone, its image's content in it");
    run("qemu-img", "compare", "-q", overlay.toString(), pulled.path().toString());
    assertTrue(
        run("qemu-io", "-r", "-c", "read -P 0x5a 1M 64k", pulled.path().toString())
            .contains("read 65536/65536"),
        "what its guest wrote");
    ImageCache.Lease pinned =
        elsewhere.acquire(
            image.substring(0, image.lastIndexOf(':')) + "@" + made.digest(), p -> {});
    assertEquals(pulled.sha256(), pinned.sha256(), "pinned by the digest it answered");

    assertNull(snapshots.snapshot("devbox-8", image, false), "a disk this worker does not hold");
    IllegalStateException busy =
        assertThrows(
            IllegalStateException.class,
            () ->
                disks.whileAtRest(
                    "devbox-7",
                    at -> {
                      try {
                        snapshots.snapshot("devbox-7", image + "-again", false);
                      } catch (ImageCache.ImageException | InterruptedException e) {
                        throw new java.io.IOException(e);
                      }
                    }));
    assertEquals("disk devbox-7 is being snapshotted already", busy.getMessage());
  }

  /**
   * A suspended VM's saved memory goes with its disk as a layer naming the machine it was saved on:
   * another worker's cache hands it out with the disk, for that reference only; the VM resumed
   * meanwhile (its memory dropped) takes nothing from the image kept here.
   */
  @Test
  void aSuspendedVmsMemoryGoesWithItsDiskAndComesBackWithThatImageAlone() throws Exception {
    TestGuest guest = TestGuest.get();
    ImageCache here = cache("here");
    ImageCache elsewhere = cache("elsewhere");
    PersistentDisks disks = new PersistentDisks(data.resolve("disks"), here, json);
    overlay(disks, here, guest, "sandbox-2");
    DiskSnapshots snapshots = snapshots(disks, here);
    String image = "oci://" + registry.address + "/snaps/sandbox:warm";
    IllegalStateException none =
        assertThrows(
            IllegalStateException.class, () -> snapshots.snapshot("sandbox-2", image, true));
    assertTrue(none.getMessage().contains("no saved memory"), none.getMessage());

    byte[] state = new byte[300_000];
    new java.util.Random(7).nextBytes(state);
    String machine = "1 CPU, 128 MiB, user data, 0 volumes, booted from its disk";
    disks.saveMemory("sandbox-2", machine, at -> Files.write(at, state));
    DiskSnapshot made = snapshots.snapshot("sandbox-2", image, true);
    assertEquals(state.length, made.memoryBytes());
    disks.dropMemory("sandbox-2"); // resumed
    ImageCache.Lease kept = here.acquire(image, p -> {});
    assertEquals(machine, kept.machine());
    assertTrue(java.util.Arrays.equals(state, Files.readAllBytes(kept.memory())), "kept whole");

    ImageCache.Lease pulled = elsewhere.acquire(image, p -> {});
    assertEquals(machine, pulled.machine());
    assertTrue(java.util.Arrays.equals(state, Files.readAllBytes(pulled.memory())), "pulled whole");

    // The same disk as an image of its own, without memory: its VMs boot.
    DiskSnapshot diskAlone = snapshots.snapshot("sandbox-2", image + "-cold", false);
    assertEquals(0, diskAlone.memoryBytes());
    ImageCache.Lease cold = elsewhere.acquire(image + "-cold", p -> {});
    assertEquals(pulled.sha256(), cold.sha256(), "the same disk");
    assertNull(cold.memory());
    assertNull(cold.machine());
  }
}
