package dev.rota.agent.images;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rota.testing.LoopbackRegistry;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * VM images pulled from a real OCI registry on loopback ({@link LoopbackRegistry}: the reference
 * registry behind token auth), with images this test pushes: an artifact whose layer is the disk,
 * and a containerDisk whose tar layer holds it; the worker's credentials, wrong ones and none.
 */
class OciRegistryTest {
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

  private ImageCache cache(String password) throws Exception {
    Path file = password == null ? null : registry.credentials(data, password);
    return new ImageCache(
        data.resolve("images"),
        1L << 30,
        json,
        Clock.systemUTC(),
        new HeldImages(data.resolve("held.json"), json, Clock.systemUTC()),
        new OciRegistry(json, OciRegistry.credentials(json, file), Set.of()));
  }

  private static byte[] disk(String seed, int size) {
    byte[] bytes = new byte[size];
    byte[] head = ("QFI\u00fb" + seed).getBytes(StandardCharsets.ISO_8859_1);
    for (int i = 0; i < size; i++) {
      bytes[i] = i < head.length ? head[i] : (byte) (i * 31 + seed.hashCode());
    }
    return bytes;
  }

  @Test
  void anArtifactsDiskIsPulledWithTheWorkersCredentialsCheckedAndKeptByContent() throws Exception {
    byte[] disk = disk("artifact", 3 << 20);
    String manifest =
        registry.push(
            "rota/guest",
            "1",
            List.of(new LoopbackRegistry.Layer("application/vnd.rota.disk.v1+qcow2", disk)));
    ImageCache cache = cache(LoopbackRegistry.PASSWORD);
    List<String> progress = new CopyOnWriteArrayList<>();
    ImageCache.Lease lease =
        cache.acquire("oci://" + registry.address + "/rota/guest:1", progress::add);
    assertEquals(LoopbackRegistry.digest(disk), "sha256:" + lease.sha256());
    assertArrayEquals(disk, Files.readAllBytes(lease.path()));
    assertEquals("qcow2", lease.format());
    assertTrue(progress.contains("pulling 100% of 3 MiB"), progress.toString());

    ImageCache.Lease pinned =
        cache.acquire("oci://" + registry.address + "/rota/guest@" + manifest, p -> {});
    assertEquals(lease.sha256(), pinned.sha256(), "pinned by its manifest's digest: the same disk");

    ImageCache.ImageException missing =
        assertThrows(
            ImageCache.ImageException.class,
            () -> cache.acquire("oci://" + registry.address + "/rota/guest:2", p -> {}));
    assertEquals(
        "image oci://" + registry.address + "/rota/guest:2 is not in its registry",
        missing.getMessage());
  }

  @Test
  void aContainerDisksDiskIsTakenFromTheFileUnderDiskInItsLayers() throws Exception {
    byte[] disk = disk("container-disk", 700_000);
    byte[] base = gzip(tar("etc/os-release", "ID=test\n".getBytes(StandardCharsets.UTF_8)));
    byte[] top = gzip(tar("disk/guest.qcow2", disk));
    registry.push(
        "rota/container-disk",
        "v1",
        List.of(
            new LoopbackRegistry.Layer("application/vnd.oci.image.layer.v1.tar+gzip", base),
            new LoopbackRegistry.Layer("application/vnd.oci.image.layer.v1.tar+gzip", top)));
    ImageCache.Lease lease =
        cache(LoopbackRegistry.PASSWORD)
            .acquire("oci://" + registry.address + "/rota/container-disk:v1", p -> {});
    assertArrayEquals(disk, Files.readAllBytes(lease.path()));
  }

  @Test
  void wrongCredentialsAndNoneAreRefusedSayingSoWithoutTheSecret() throws Exception {
    registry.push(
        "rota/private",
        "1",
        List.of(new LoopbackRegistry.Layer("application/vnd.rota.disk.v1+raw", disk("p", 4096))));
    String image = "oci://" + registry.address + "/rota/private:1";
    ImageCache.ImageException wrong =
        assertThrows(
            ImageCache.ImageException.class, () -> cache("not-it").acquire(image, p -> {}));
    assertEquals(
        "the token service of registry "
            + registry.address
            + " refused this worker's credentials (HTTP 401)",
        wrong.getMessage());
    assertFalse(wrong.getMessage().contains("not-it"));
    ImageCache.ImageException none =
        assertThrows(ImageCache.ImageException.class, () -> cache(null).acquire(image, p -> {}));
    assertEquals(
        "the token service of registry "
            + registry.address
            + " refused an anonymous pull (HTTP 401)",
        none.getMessage());
  }

  /** A tar of one file, as a container image's layer holds files. */
  private static byte[] tar(String name, byte[] body) {
    byte[] header = new byte[512];
    put(header, 0, name);
    put(header, 100, "0000644");
    put(header, 108, "0000000");
    put(header, 116, "0000000");
    put(header, 124, String.format("%011o", body.length));
    put(header, 136, String.format("%011o", 0));
    header[156] = '0';
    put(header, 257, "ustar");
    put(header, 263, "00");
    java.util.Arrays.fill(header, 148, 156, (byte) ' ');
    int sum = 0;
    for (byte b : header) {
      sum += b & 0xff;
    }
    put(header, 148, String.format("%06o", sum));
    header[154] = 0;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(header);
    out.writeBytes(body);
    out.writeBytes(new byte[(512 - body.length % 512) % 512]);
    out.writeBytes(new byte[1024]);
    return out.toByteArray();
  }

  private static void put(byte[] to, int at, String text) {
    byte[] b = text.getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(b, 0, to, at, b.length);
  }

  private static byte[] gzip(byte[] bytes) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream z = new GZIPOutputStream(out)) {
      z.write(bytes);
    }
    return out.toByteArray();
  }
}
