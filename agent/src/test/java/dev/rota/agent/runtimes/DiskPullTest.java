package dev.rota.agent.runtimes;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.rota.agent.images.HeldImages;
import dev.rota.agent.images.ImageCache;
import dev.rota.agent.images.OciRegistry;
import dev.rota.agent.tasks.Task;
import dev.rota.agentapi.DiskSource;
import dev.rota.agentapi.DiskSpec;
import dev.rota.agentapi.TaskSpec;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A persistent disk copied from the agent that holds it, against a holder played by an HTTP server
 * on loopback: a copy cut halfway (the holder dies under it) leaves no disk in its place and is
 * made whole by the next try; a disk still in use there is waited for.
 */
class DiskPullTest {
  private static final byte[] DISK = new byte[1 << 20];

  static {
    new java.util.Random(7).nextBytes(DISK);
  }

  @TempDir Path data;
  private final ObjectMapper json = new ObjectMapper();
  private HttpServer holder;
  private final AtomicInteger asked = new AtomicInteger();
  private final List<String> tokens = new CopyOnWriteArrayList<>();

  /** How the holder answers each call, in turn: "cut", "busy" or "whole". */
  private final List<String> answers = new CopyOnWriteArrayList<>();

  private PersistentDisks disks;

  @BeforeEach
  void disks() throws IOException {
    serve();
    ImageCache cache =
        new ImageCache(
            data.resolve("images"),
            1L << 30,
            json,
            Clock.systemUTC(),
            new HeldImages(data.resolve("images.json"), json, Clock.systemUTC()),
            new OciRegistry(json, Map.of(), java.util.Set.of()));
    disks = new PersistentDisks(data.resolve("disks"), cache, json);
  }

  /** The holding agent, on a port of its own. */
  private void serve() throws IOException {
    holder = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 8);
    holder.createContext(
        "/v1/disks/box-3/files/disk.qcow2",
        x -> {
          tokens.add(x.getRequestHeaders().getFirst("Authorization"));
          String answer = answers.get(Math.min(asked.getAndIncrement(), answers.size() - 1));
          if (answer.equals("busy")) {
            byte[] why = "disk box-3 is in use by task box.1".getBytes();
            x.sendResponseHeaders(409, why.length);
            x.getResponseBody().write(why);
            x.close();
            return;
          }
          x.sendResponseHeaders(200, DISK.length);
          OutputStream out = x.getResponseBody();
          if (answer.equals("cut")) {
            out.write(DISK, 0, DISK.length / 4);
            out.flush();
            x.getHttpContext().getServer().stop(0); // the holder dies mid-copy
            return;
          }
          out.write(DISK);
          out.close();
        });
    holder.start();
  }

  @AfterEach
  void stop() {
    holder.stop(0);
  }

  private DiskSource from() {
    return new DiskSource(
        "w1", "http://127.0.0.1:" + holder.getAddress().getPort(), "disk1.9.token", null);
  }

  private Task task(String taskId) {
    return new Task(
        taskId,
        new TaskSpec(
            "box",
            Integer.parseInt(taskId.substring(taskId.indexOf('.') + 1)),
            "qemu",
            "file:///d.qcow2",
            List.of(),
            Map.of(),
            Map.of(),
            null,
            null,
            null,
            3L,
            null,
            null,
            null,
            new DiskSpec("box-3", true, null, from()),
            null),
        v -> {});
  }

  private Path take(Task task) throws IOException, InterruptedException {
    DiskSource from = from();
    return disks.take(
        "box-3",
        task,
        new ImageCache.Lease("file:///d.qcow2", "ab", data.resolve("d.qcow2"), "qcow2", null, null),
        at -> {
          try {
            DiskPull.copy(from, "box-3", "disk.qcow2", at, p -> {});
          } catch (InterruptedException e) {
            throw new IOException(e);
          }
        });
  }

  @Test
  void aCopyCutHalfwayLeavesNoDiskInPlaceAndTheNextTryCopiesItWhole() throws Exception {
    answers.add("cut");
    Task first = task("box.4");
    IOException cut = assertThrows(IOException.class, () -> take(first));
    first.failed(cut.getMessage(), java.time.Instant.now()); // as its runtime does
    assertTrue(
        cut.getMessage().startsWith("could not copy its disk from worker w1"), cut.getMessage());
    assertFalse(Files.exists(disks.overlay("box-3")), "no disk in its place");
    assertEquals(List.of(), disks.list(), "none held");

    serve(); // the holder back, on another port
    answers.clear();
    asked.set(0);
    answers.add("whole");
    Path disk = take(task("box.5"));
    assertArrayEquals(DISK, Files.readAllBytes(disk), "copied whole");
    assertEquals(List.of("box-3"), disks.list().stream().map(d -> d.id()).toList());
    assertTrue(tokens.stream().allMatch("Bearer disk1.9.token"::equals), tokens.toString());
  }

  @Test
  void aDiskStillInUseWhereItIsIsWaitedForThenCopied() throws Exception {
    answers.addAll(List.of("busy", "busy", "whole"));
    Path disk = take(task("box.4"));
    assertEquals(3, asked.get(), "asked until it was lent");
    assertArrayEquals(DISK, Files.readAllBytes(disk));
  }
}
