package dev.rota.agent.images;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.rota.agent.runtimes.QemuRuntimeTest;
import dev.rota.testing.TestClock;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The worker's image cache: one fetch per image, content pinned by digest, eviction that spares
 * what VMs use.
 */
class ImageCacheTest {
  private static final int MIB = 1024 * 1024;

  @TempDir Path data;
  private final ObjectMapper json = new ObjectMapper();
  private final TestClock clock = TestClock.standingAt(Instant.parse("2026-11-26T00:00:00Z"));
  private HeldImages held;

  private ImageCache cache(long maxBytes) {
    held = new HeldImages(data.resolve("images.json"), json, clock);
    return new ImageCache(
        data.resolve("images"),
        maxBytes,
        json,
        clock,
        held,
        new OciRegistry(json, Map.of(), java.util.Set.of()));
  }

  private String image(String name, int bytes) throws Exception {
    Path file = data.resolve(name);
    byte[] content = new byte[bytes];
    content[0] = (byte) name.hashCode(); // each its own content, so its own digest
    Files.write(file, content);
    return file.toUri().toString();
  }

  private List<String> heldImages() {
    return held.report().images().stream().map(m -> m.get("image")).sorted().toList();
  }

  @Test
  void theLeastRecentlyUsedImageNoVmUsesIsEvictedAndOneInUseNeverIs() throws Exception {
    ImageCache cache = cache(3L * MIB);
    String a = image("a", MIB);
    String b = image("b", MIB);
    String c = image("c", MIB);
    String d = image("d", MIB);
    ImageCache.Lease inUse = cache.acquire(a, p -> {}); // the oldest, but a VM runs from it
    clock.advance(Duration.ofMinutes(1));
    cache.release(cache.acquire(b, p -> {}).sha256());
    clock.advance(Duration.ofMinutes(1));
    cache.release(cache.acquire(c, p -> {}).sha256());
    clock.advance(Duration.ofMinutes(1));
    cache.acquire(d, p -> {});

    assertEquals(
        List.of(a, c, d),
        cache.refs().keySet().stream().sorted().toList(),
        "b went: idle and least recently used");
    assertTrue(Files.exists(inUse.path()), "a VM's image stays however old");
    assertEquals(List.of(a, c, d), heldImages(), "the worker no longer says it holds b");
    assertEquals(3L * MIB, cache.bytes());

    ImageCache small = cache(1);
    ImageCache.Lease both = small.acquire(image("e", MIB), p -> {});
    assertTrue(Files.exists(both.path()), "an image in use stays even past the cache's size");
    small.release(both.sha256());
    assertFalse(Files.exists(both.path()), "and goes once no VM uses it");
  }

  /**
   * An image made here with a guest's memory beside its disk: counted in the cache's size, known
   * again by the next agent, and evicted with its disk.
   */
  @Test
  void theMemoryAnImageHoldsIsKeptWithItsDiskAndEvictedWithIt() throws Exception {
    ImageCache cache = cache(3L * MIB);
    Path disk = cache.newFile();
    Files.write(disk, new byte[MIB]);
    Path memory = cache.newFile();
    byte[] state = new byte[MIB / 2];
    state[7] = 7;
    Files.write(memory, state);
    String sha = ImageCache.sha256(disk);
    String memorySha = ImageCache.sha256(memory);
    String snap = "oci://127.0.0.1:5000/snaps/warm:1";
    cache.keep(
        snap,
        disk,
        sha,
        memory,
        new ImageCache.Memory(memorySha, state.length, "1 CPU, 128 MiB, user data, 0 volumes"));
    assertEquals(MIB + MIB / 2, cache.bytes());

    ImageCache again = cache(3L * MIB); // the next agent's
    ImageCache.Lease lease = again.acquire(snap, p -> {});
    assertEquals("1 CPU, 128 MiB, user data, 0 volumes", lease.machine());
    assertTrue(java.util.Arrays.equals(state, Files.readAllBytes(lease.memory())));
    again.release(lease.sha256());

    clock.advance(Duration.ofMinutes(1));
    again.release(again.acquire(image("b", MIB), p -> {}).sha256());
    clock.advance(Duration.ofMinutes(1));
    again.release(again.acquire(image("c", MIB), p -> {}).sha256());
    assertFalse(again.refs().containsKey(snap), "the least recently used went");
    assertFalse(Files.exists(lease.memory()), "and its memory with it");
    assertEquals(2L * MIB, again.bytes());
  }

  @Test
  void manyVmsAskingForOneImageAtOnceShareOneFetchAndHearItsProgress() throws Exception {
    byte[] content = new byte[4 * MIB];
    AtomicInteger requests = new AtomicInteger();
    CountDownLatch asked = new CountDownLatch(1);
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 8);
    server.createContext(
        "/img.raw",
        x -> {
          requests.incrementAndGet();
          try {
            asked.await(); // until every VM has asked
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          x.sendResponseHeaders(200, content.length);
          try (OutputStream out = x.getResponseBody()) {
            for (int i = 0; i < content.length; i += 64 * 1024) {
              out.write(content, i, 64 * 1024);
            }
          }
        });
    server.setExecutor(Executors.newCachedThreadPool());
    server.start();
    ExecutorService vms = Executors.newFixedThreadPool(5);
    try {
      ImageCache cache = cache(1L << 30);
      String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/img.raw";
      List<String> progress = new CopyOnWriteArrayList<>();
      List<Future<ImageCache.Lease>> leases = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        leases.add(vms.submit(() -> cache.acquire(url, progress::add)));
      }
      dev.rota.testing.Eventually.eventually("the fetch began", () -> requests.get() == 1);
      // The others join this fetch, or, asking after it ended, find the image here: one request
      // either way.
      asked.countDown();
      for (Future<ImageCache.Lease> l : leases) {
        assertEquals("raw", l.get().format());
      }
      assertEquals(1, requests.get(), "fetched once");
      assertTrue(progress.contains("pulling 50% of 4 MiB"), progress.toString());
      assertTrue(progress.contains("pulling 100% of 4 MiB"), progress.toString());
      assertEquals(List.of(url), heldImages());
    } finally {
      vms.shutdownNow();
      server.stop(0);
    }
  }

  @Test
  void aPinnedImageAlreadyHereIsNotFetchedAndAMismatchIsRefusedAndKeptOut() throws Exception {
    ImageCache cache = cache(1L << 30);
    String a = image("a", 1000);
    String sha = QemuRuntimeTest.sha256(data.resolve("a"));
    ImageCache.Lease first = cache.acquire(a + "@sha256:" + sha, p -> {});
    Files.delete(data.resolve("a"));
    ImageCache.Lease again = cache.acquire("https://mirror.invalid/a.raw@sha256:" + sha, p -> {});
    assertEquals(first.path(), again.path(), "the content is what was pinned: no fetch");

    String b = image("b", 1000);
    ImageCache.ImageException e =
        assertThrows(
            ImageCache.ImageException.class,
            () -> cache.acquire(b + "@sha256:" + "f".repeat(64), p -> {}));
    assertTrue(e.getMessage().contains("not the pinned sha256:" + "f".repeat(64)), e.getMessage());
    assertEquals(
        Map.of(a + "@sha256:" + sha, sha, "https://mirror.invalid/a.raw@sha256:" + sha, sha),
        cache.refs());
    assertEquals(
        1, Files.list(data.resolve("images/blobs")).count(), "the mismatch left nothing behind");
  }

  /**
   * A guest opens its image's blob by path, as the guest's own user: a second fetch of the same
   * content (under another address) must neither swap the file under a starting guest nor leave it
   * readable by the agent alone.
   */
  @Test
  void aBlobIsReadableByEveryGuestAndAFetchOfTheSameContentLeavesItAsItWas() throws Exception {
    ImageCache cache = cache(1L << 30);
    String a = image("a", 1000);
    ImageCache.Lease first = cache.acquire(a, p -> {});
    assertTrue(
        Files.getPosixFilePermissions(first.path())
            .contains(java.nio.file.attribute.PosixFilePermission.OTHERS_READ),
        "readable by the guests' users: " + Files.getPosixFilePermissions(first.path()));
    Object before = Files.readAttributes(first.path(), "unix:ino").get("ino");
    Path copy = data.resolve("same-content");
    Files.copy(data.resolve("a"), copy);
    ImageCache.Lease again = cache.acquire(copy.toUri().toString(), p -> {});
    assertEquals(first.path(), again.path(), "one blob for one content");
    assertEquals(
        before,
        Files.readAttributes(again.path(), "unix:ino").get("ino"),
        "the blob a guest may be opening was not replaced");

    // A cache an earlier agent made, its blobs the agent's alone: readable once this one loads it.
    Files.setPosixFilePermissions(
        first.path(), java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
    ImageCache restarted = cache(1L << 30);
    assertEquals(first.path(), restarted.acquire(a, p -> {}).path(), "kept across the restart");
    assertTrue(
        Files.getPosixFilePermissions(first.path())
            .contains(java.nio.file.attribute.PosixFilePermission.OTHERS_READ),
        "made readable by the guests' users at load");
  }

  @Test
  void anAddressOfAnotherKindIsRefused() {
    ImageCache cache = cache(1L << 30);
    ImageCache.ImageException e =
        assertThrows(
            ImageCache.ImageException.class, () -> cache.acquire("ghcr.io/acme/a:1", p -> {}));
    assertEquals(
        "image ghcr.io/acme/a:1 is not an https://, http://, file:// or oci:// address",
        e.getMessage());
  }
}
