package dev.rota.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.store.ChangeRepository;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code ?watch=true}: a snapshot, then each change as it commits, resumable from any line, 410
 * when too old.
 */
// Not in a test transaction: the server must see what the test writes to the feed.
@MicronautTest(transactional = false)
class WatchApiTest {
  @Inject Http http;
  @Inject ChangeRepository changes;

  @SuppressWarnings("unchecked")
  private static Map<String, Object> object(Map<String, Object> line) {
    return (Map<String, Object>) line.get("object");
  }

  /**
   * The next change of worker {@code watched}: the other tests' workers (in the same store) may
   * change meanwhile, their health written by the scheduler's terms as this one's is.
   */
  private static Map<String, Object> nextOfWatched(Http.Lines watch) throws Exception {
    for (int i = 0; i < 100; i++) {
      Map<String, Object> change = watch.nextChange();
      if ("watched".equals(object(change).get("name"))) {
        return change;
      }
    }
    throw new AssertionError("no change of worker watched in 100 lines");
  }

  /**
   * The next change of worker {@code watched} with that {@code schedulingPaused}. The scheduler's
   * terms write the worker's health too (its endpoint answers no probe), and such a change may come
   * first: each is the worker as it was then, so it still has the old flag.
   */
  private static Map<String, Object> changeWhere(
      Http.Lines watch, boolean paused, Map<String, Object> before) throws Exception {
    Map<String, Object> last = before;
    for (int i = 0; i < 10; i++) {
      Map<String, Object> change = nextOfWatched(watch);
      if (Boolean.valueOf(paused).equals(object(change).get("schedulingPaused"))) {
        return change;
      }
      assertEquals(
          !paused,
          object(change).get("schedulingPaused"),
          "a health change shows the flag as it was");
      boolean healthChanged =
          last == null
              || !java.util.Objects.equals(last.get("health"), object(change).get("health"))
              || !java.util.Objects.equals(
                  last.get("healthMessage"), object(change).get("healthMessage"));
      assertTrue(healthChanged, "only the scheduler's health writes come between: " + change);
      last = object(change);
    }
    throw new AssertionError("no change with schedulingPaused " + paused + " in 10 lines");
  }

  @Test
  void aWorkerWatchSendsTheSnapshotThenEachChangeAndResumesFromAnyLine() throws Exception {
    assertEquals(201, http.post("/v1/workers", WorkerApiTest.worker("watched", "m-w", 4)).status());
    String synced;
    try (Http.Lines watch = http.lines("/v1/workers?watch=true")) {
      assertEquals(200, watch.status);
      assertTrue(watch.contentType.startsWith("application/x-ndjson"), watch.contentType);
      List<String> snapshot = new ArrayList<>();
      Map<String, Object> line = watch.next();
      while ("snapshot".equals(line.get("type"))) {
        snapshot.add((String) object(line).get("name"));
        line = watch.next();
      }
      assertTrue(snapshot.contains("watched"), snapshot.toString());
      assertEquals("synced", line.get("type"));
      synced = (String) line.get("resourceVersion");

      assertEquals(200, http.patch("/v1/workers/watched", "{\"schedulingPaused\":true}").status());
      Map<String, Object> paused = changeWhere(watch, true, null);
      assertEquals("upsert", paused.get("type"));
      assertEquals("watched", object(paused).get("name"));
      assertEquals(true, object(paused).get("schedulingPaused"), "the worker as it is now");
      assertTrue(Long.parseLong((String) paused.get("resourceVersion")) > Long.parseLong(synced));

      assertEquals(
          204,
          http.put("/v1/workers/watched/heartbeat", "")
              .status()); // not a change a watch is told of
      assertEquals(200, http.patch("/v1/workers/watched", "{\"schedulingPaused\":false}").status());
      Map<String, Object> resumed = changeWhere(watch, false, object(paused));
      assertEquals(
          false, object(resumed).get("schedulingPaused"), "the heartbeat sent nothing: " + resumed);

      assertEquals(204, http.delete("/v1/workers/watched").status());
      Map<String, Object> deleted = nextOfWatched(watch);
      while (!"delete".equals(deleted.get("type"))) {
        // a health write of the scheduler's that came before the deletion
        assertEquals(false, object(deleted).get("schedulingPaused"), deleted.toString());
        deleted = nextOfWatched(watch);
      }
      assertEquals(Map.of("name", "watched"), object(deleted));
    }

    try (Http.Lines again = http.lines("/v1/workers?watch=true&resourceVersion=" + synced)) {
      Map<String, Object> first = again.nextChange();
      assertTrue(
          List.of("upsert", "delete").contains(first.get("type")),
          "no snapshot: what changed after the line resumed from: " + first);
      if (!"watched".equals(object(first).get("name"))) {
        assertEquals("watched", object(nextOfWatched(again)).get("name"));
      }
    }
  }

  @Test
  void aVmWatchSendsItsSubmission() throws Exception {
    try (Http.Lines watch = http.lines("/v1/vms?watch=true")) {
      Map<String, Object> line = watch.next();
      while (!"synced".equals(line.get("type"))) {
        line = watch.next();
      }
      assertEquals(
          201,
          http.post("/v1/vms", "{\"name\":\"watched-vm\",\"command\":[\"sleep\",\"1\"]}").status());
      Map<String, Object> created = watch.nextChange();
      while (!"watched-vm".equals(object(created).get("name"))) {
        created = watch.nextChange();
      }
      assertEquals("upsert", created.get("type"));
      assertTrue(object(created).containsKey("status"), "the VM as GET shows it: " + created);
    }
  }

  @Test
  void aResourceVersionOlderThanTheFeedIsA410AndABadOneOrAFilterA400() throws Exception {
    assertEquals(201, http.post("/v1/workers", WorkerApiTest.worker("aged", "m-a", 4)).status());
    assertEquals(201, http.post("/v1/workers", WorkerApiTest.worker("aged-2", "m-a2", 4)).status());
    changes.forgetBefore(
        Instant.now().plusSeconds(3600)); // as an hour later: only the newest is kept
    Http.Reply gone = http.get("/v1/workers?watch=true&resourceVersion=0");
    assertEquals(410, gone.status(), gone.toString());
    assertTrue(
        gone.detail().startsWith("resourceVersion: 0 is older than the changes kept"),
        gone.detail());
    Http.Reply bad = http.get("/v1/vms?watch=true&resourceVersion=abc");
    assertEquals(400, bad.status());
    assertTrue(bad.detail().startsWith("resourceVersion:"), bad.detail());
    Http.Reply filtered = http.get("/v1/vms?watch=true&status=running");
    assertEquals(400, filtered.status());
    assertTrue(filtered.detail().startsWith("status:"), filtered.detail());
  }
}
