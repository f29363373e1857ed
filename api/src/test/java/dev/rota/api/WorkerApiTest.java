package dev.rota.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.store.ClockFactory;
import dev.rota.store.WorkerRepository;
import dev.rota.testing.TestClock;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@MicronautTest(environments = WorkerApiTest.MOVED_BY_HAND)
class WorkerApiTest {
  static final String MOVED_BY_HAND = "clock-moved-by-hand";
  @Inject Http http;
  @Inject WorkerRepository workers;

  /**
   * A clock the tests move by hand, in place of the wall clock. One for the class, as the context
   * is: the tests only ever compare times before and after a move.
   */
  static final TestClock clock = TestClock.standingAt(Instant.parse("2026-01-01T00:00:00Z"));

  /**
   * The clock as a plain singleton of this test's environment, not a {@code @MockBean}: a mock bean
   * lives in Micronaut's refresh scope, whose proxy failed a request now and then with "No lock
   * present for object: TestClock" (micronaut-core#3334).
   */
  @Factory
  @Requires(env = MOVED_BY_HAND)
  static class ClockMovedByHand {
    @Singleton
    @Replaces(bean = Clock.class, factory = ClockFactory.class)
    Clock clock() {
      return clock;
    }
  }

  static String worker(String name, String machineId, int cpu) {
    return "{\"name\":\""
        + name
        + "\",\"endpoint\":\"http://127.0.0.1:9101\",\"resources\":{\"cpu\":"
        + cpu
        + ",\"memory\":16384},\"labels\":{\"disk\":\"ssd\"},\"runtimes\":[\"process\"],\"machineId\":\""
        + machineId
        + "\",\"health\":\"ready\",\"schedulingPaused\":true,\"vmCount\":9}";
  }

  @Test
  void registrationCreatesThenUpdatesAndKeepsAPauseAndServerOwnedFields() {
    Http.Reply created = http.post("/v1/workers", worker("mini-1", "m-1", 8));
    assertEquals(201, created.status(), created.toString());
    Map<String, Object> w = created.map();
    assertEquals("not-ready", w.get("health"), "new workers wait for a readiness probe");
    assertEquals(false, w.get("schedulingPaused"), "a registration cannot pause");
    assertEquals(0, w.get("vmCount"));
    assertEquals(Map.of(), w.get("allocated"));
    assertEquals(Map.of("cpu", 8, "memory", 16384), w.get("resources"));

    assertEquals(200, http.patch("/v1/workers/mini-1", "{\"schedulingPaused\":true}").status());
    Http.Reply updated = http.post("/v1/workers", worker("mini-1", "m-1", 16));
    assertEquals(200, updated.status(), updated.toString());
    assertEquals(Map.of("cpu", 16, "memory", 16384), updated.map().get("resources"));
    assertEquals(true, updated.map().get("schedulingPaused"), "re-registration keeps the pause");
    assertEquals(w.get("createdAt"), updated.map().get("createdAt"));
  }

  @Test
  void anotherMachineCannotClaimAName() {
    assertEquals(201, http.post("/v1/workers", worker("mini-2", "m-2", 4)).status());
    Http.Reply claim = http.post("/v1/workers", worker("mini-2", "m-other", 4));
    assertEquals(409, claim.status());
    assertTrue(claim.isProblem());
    assertTrue(claim.detail().contains("mini-2"), claim.detail());
    assertEquals(
        4L, workers.findById("mini-2").orElseThrow().resources().get("cpu"), "nothing changed");
  }

  @Test
  void
      anHttpsAgentsCertificateIsPinnedAtItsFirstRegistrationAndAnotherIsRefusedUntilTheWorkerIsDeleted() {
    String pin = "ab".repeat(32);
    String other = "cd".repeat(32);
    assertEquals(201, http.post("/v1/workers", pinned("pinned-1", pin)).status());
    assertEquals(
        pin,
        http.get("/v1/workers/pinned-1").map().get("certificateSha256"),
        "shown, so that it can be compared");
    assertEquals(
        200, http.post("/v1/workers", pinned("pinned-1", pin)).status(), "the same agent again");

    Http.Reply impostor = http.post("/v1/workers", pinned("pinned-1", other));
    assertEquals(409, impostor.status(), impostor.toString());
    assertTrue(
        impostor.detail().contains("pinned")
            && impostor.detail().contains("DELETE /v1/workers/pinned-1"),
        impostor.detail());
    Http.Reply downgrade =
        http.post("/v1/workers", "{\"name\":\"pinned-1\",\"endpoint\":\"http://127.0.0.1:9101\"}");
    assertEquals(409, downgrade.status(), "no way around the pin by plain HTTP: " + downgrade);
    assertEquals(
        pin, workers.findById("pinned-1").orElseThrow().certificateSha256(), "nothing changed");
    assertEquals("https://127.0.0.1:9443", workers.findById("pinned-1").orElseThrow().endpoint());

    assertEquals(204, http.delete("/v1/workers/pinned-1").status());
    assertEquals(
        201,
        http.post("/v1/workers", pinned("pinned-1", other)).status(),
        "deleted: the next certificate is pinned");
    assertEquals(other, workers.findById("pinned-1").orElseThrow().certificateSha256());
  }

  @Test
  void whatAnAgentSaysAPersonShouldKnowIsShownAndEachRegistrationReplacesIt() {
    String unenforced =
        "process tasks run without CPU and memory limits: no writable cgroup hierarchy";
    Http.Reply said =
        http.post(
            "/v1/workers",
            "{\"name\":\"noticed-1\",\"endpoint\":\"http://127.0.0.1:9101\",\"notices\":[\""
                + unenforced
                + "\"]}");
    assertEquals(201, said.status(), said.toString());
    assertEquals(List.of(unenforced), said.map().get("notices"));
    assertEquals(List.of(unenforced), http.get("/v1/workers/noticed-1").map().get("notices"));

    Http.Reply mended =
        http.post("/v1/workers", "{\"name\":\"noticed-1\",\"endpoint\":\"http://127.0.0.1:9101\"}");
    assertEquals(200, mended.status(), mended.toString());
    assertEquals(
        List.of(),
        mended.map().get("notices"),
        "an agent that says nothing now has nothing to tell");
    assertEquals(List.of(), workers.findById("noticed-1").orElseThrow().notices());
  }

  @Test
  void theAgentsBuildFromItsUserAgentIsShownAndAnotherClientsIsUnknown() {
    String body = "{\"name\":\"built-1\",\"endpoint\":\"http://127.0.0.1:9101\"}";
    Http.Reply agent =
        http.send(
            "POST",
            "/v1/workers",
            body,
            null,
            Map.of("User-Agent", "rota-agent/0.2.0+1a2b3c4 (linux)"));
    assertEquals(201, agent.status(), agent.toString());
    assertEquals("0.2.0+1a2b3c4", http.get("/v1/workers/built-1").map().get("agentVersion"));
    assertEquals("0.2.0+1a2b3c4", workers.findById("built-1").orElseThrow().agentVersion());

    Http.Reply other = http.post("/v1/workers", body);
    assertEquals(200, other.status(), other.toString());
    assertNull(other.map().get("agentVersion"), "a client that did not say is not guessed");
  }

  private static String pinned(String name, String sha256) {
    return "{\"name\":\""
        + name
        + "\",\"endpoint\":\"https://127.0.0.1:9443\",\"certificateSha256\":\""
        + sha256
        + "\"}";
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          bad name          | {"name":"Mini_1","endpoint":"http://a:1"}                         | name
          no endpoint       | {"name":"bad-1"}                                                  | endpoint
          endpoint not url  | {"name":"bad-2","endpoint":"ftp://x"}                             | endpoint
          negative resource | {"name":"bad-3","endpoint":"http://a:1","resources":{"cpu":-4}}   | resources.cpu
          runtimes as text  | {"name":"bad-4","endpoint":"http://a:1","runtimes":"process"}     | runtimes
          image time        | {"name":"bad-5","endpoint":"http://a:1","images":[{"image":"a:1","lastUsedAt":"yesterday"}]} | images.0.lastUsedAt
          image blank       | {"name":"bad-6","endpoint":"http://a:1","images":[{"image":"","lastUsedAt":"2026-01-01T00:00:00Z"}]} | images.0.image
          https, no pin     | {"name":"bad-7","endpoint":"https://a:1"}                         | certificateSha256
          pin, plain http   | {"name":"bad-8","endpoint":"http://a:1","certificateSha256":"AAAA"} | certificateSha256
          pin, not sha256   | {"name":"bad-9","endpoint":"https://a:1","certificateSha256":"AAAA"} | certificateSha256
          notice blank      | {"name":"bad-10","endpoint":"http://a:1","notices":[""]}          | notices.0
          notices as text   | {"name":"bad-11","endpoint":"http://a:1","notices":"slow"}        | notices
          """)
  void badRegistrationsAreRejectedAndStoreNothing(String why, String body, String field) {
    long before = workers.count();
    Http.Reply reply = http.post("/v1/workers", body);
    assertEquals(400, reply.status(), reply.toString());
    assertTrue(reply.isProblem());
    assertTrue(reply.detail().contains(field), why + ": " + reply.detail());
    assertEquals(before, workers.count());
  }

  @Test
  void heartbeatsMoveLastSeenAndNeverUndoAPause() {
    assertEquals(201, http.post("/v1/workers", worker("beat", "m-b", 4)).status());
    assertEquals(200, http.patch("/v1/workers/beat", "{\"schedulingPaused\":true}").status());
    Object seen = http.get("/v1/workers/beat").map().get("lastSeen");
    clock.advance(Duration.ofSeconds(5));
    Http.Reply beat = http.put("/v1/workers/beat/heartbeat", null);
    assertEquals(204, beat.status());
    assertEquals(
        "1",
        beat.header("Rota-Heartbeat-Interval"),
        "a small fleet: the agent keeps its own interval");
    assertEquals(
        "180",
        beat.header("Rota-Fence-After"),
        "an agent no host hears stops its tasks at the offline deadline (3m)");
    assertEquals(
        Long.toString(clock.millis()),
        beat.header("Rota-Controller-Time"),
        "the controller's clock, by which the agent judges a start's deadline");
    Map<String, Object> after = http.get("/v1/workers/beat").map();
    assertNotEquals(seen, after.get("lastSeen"));
    assertEquals(
        Instant.parse((String) seen).plusSeconds(5), Instant.parse((String) after.get("lastSeen")));
    assertEquals(true, after.get("schedulingPaused"));
    Http.Reply unknown = http.put("/v1/workers/nobody/heartbeat", null);
    assertEquals(404, unknown.status(), "an unknown worker's agent re-registers on 404");
    assertTrue(unknown.isProblem());
  }

  @Test
  void theImagesAnAgentHoldsComeWithItsRegistrationOrHeartbeatAndShowMostRecentFirst() {
    String registration =
        worker("holder", "m-h", 4)
            .replace(
                "\"vmCount\":9",
                "\"images\":[{\"image\":\"ghcr.io/acme/a:1\",\"lastUsedAt\":\"2025-12-31T10:00:00Z\"}]");
    Http.Reply created = http.post("/v1/workers", registration);
    assertEquals(201, created.status(), created.toString());
    assertEquals(
        List.of(Map.of("image", "ghcr.io/acme/a:1", "lastUsedAt", "2025-12-31T10:00:00Z")),
        created.map().get("images"));

    assertEquals(204, http.put("/v1/workers/holder/heartbeat", null).status());
    assertEquals(
        1,
        ((List<?>) http.get("/v1/workers/holder").map().get("images")).size(),
        "a bare heartbeat keeps them");

    clock.advance(Duration.ofSeconds(5));
    String held =
        "{\"images\":[{\"image\":\"ghcr.io/acme/a:1\",\"lastUsedAt\":\"2025-12-31T10:00:00Z\"},"
            + "{\"image\":\"ghcr.io/acme/b:2\",\"lastUsedAt\":\"2025-12-31T23:00:00Z\"}]}";
    assertEquals(204, http.put("/v1/workers/holder/heartbeat", held).status());
    Map<String, Object> after = http.get("/v1/workers/holder").map();
    assertEquals(
        List.of(
            Map.of("image", "ghcr.io/acme/b:2", "lastUsedAt", "2025-12-31T23:00:00Z"),
            Map.of("image", "ghcr.io/acme/a:1", "lastUsedAt", "2025-12-31T10:00:00Z")),
        after.get("images"));
    assertEquals(
        Instant.parse((String) created.map().get("lastSeen")).plusSeconds(5),
        Instant.parse((String) after.get("lastSeen")),
        "it is a heartbeat all the same");

    Http.Reply bad =
        http.put(
            "/v1/workers/holder/heartbeat",
            "{\"images\":[{\"image\":\"c:3\",\"lastUsedAt\":\"soon\"}]}");
    assertEquals(400, bad.status(), bad.toString());
    assertTrue(bad.isProblem());
    assertTrue(bad.detail().contains("images.0.lastUsedAt"), bad.detail());
    assertEquals(
        after.get("images"), http.get("/v1/workers/holder").map().get("images"), "nothing changed");
    assertEquals(after.get("lastSeen"), http.get("/v1/workers/holder").map().get("lastSeen"));

    assertEquals(204, http.put("/v1/workers/holder/heartbeat", "{\"images\":[]}").status());
    assertEquals(
        List.of(), http.get("/v1/workers/holder").map().get("images"), "it holds none any more");
    assertEquals(404, http.put("/v1/workers/nobody/heartbeat", held).status());
  }

  @Test
  void patchChangesOnlySchedulingPaused() {
    assertEquals(201, http.post("/v1/workers", worker("patchy", "m-p", 4)).status());
    Http.Reply paused = http.patch("/v1/workers/patchy", "{\"schedulingPaused\":true}");
    assertEquals(200, paused.status(), paused.toString());
    assertEquals(true, paused.map().get("schedulingPaused"));

    for (String[] bad :
        List.of(
            new String[] {"{\"resources\":{\"cpu\":1}}", "resources"},
            new String[] {"{\"schedulingPaused\":false,\"labels\":{}}", "labels"},
            new String[] {"{\"schedulingPaused\":\"no\"}", "schedulingPaused"},
            new String[] {"{}", "schedulingPaused"},
            new String[] {"[true]", "object"})) {
      Http.Reply reply = http.patch("/v1/workers/patchy", bad[0]);
      assertEquals(400, reply.status(), bad[0] + " -> " + reply);
      assertTrue(reply.detail().contains(bad[1]), reply.detail());
    }
    assertEquals(
        true,
        http.get("/v1/workers/patchy").map().get("schedulingPaused"),
        "rejected patches change nothing");
    assertEquals(404, http.patch("/v1/workers/nobody", "{\"schedulingPaused\":true}").status());
  }

  @Test
  void aDrainPausesTheWorkerKeepsItsStartAcrossANewDeadlineAndAResumeEndsIt() {
    assertEquals(201, http.post("/v1/workers", worker("drainy", "m-d", 4)).status());
    Instant asked = clock.instant();
    Http.Reply drained =
        http.post("/v1/workers/drainy/drain", "{\"deadline\":\"2026-01-01T02:00:00+01:00\"}");
    assertEquals(200, drained.status(), drained.toString());
    assertEquals(true, drained.map().get("schedulingPaused"), "a draining worker takes no new VMs");
    @SuppressWarnings("unchecked")
    Map<String, Object> drain = (Map<String, Object>) drained.map().get("drain");
    assertEquals(
        "2026-01-01T01:00:00Z", drain.get("deadline"), "any RFC 3339 offset, shown in UTC");
    assertEquals(asked.toString(), drain.get("startedAt"));
    assertEquals("drained", drain.get("state"), "nothing runs on it");

    clock.advance(Duration.ofMinutes(5));
    Http.Reply again = http.post("/v1/workers/drainy/drain", "");
    @SuppressWarnings("unchecked")
    Map<String, Object> later = (Map<String, Object>) again.map().get("drain");
    assertEquals(
        clock.instant().plus(Duration.ofHours(1)).toString(),
        later.get("deadline"),
        "an hour by default");
    assertEquals(asked.toString(), later.get("startedAt"), "the drain under way goes on");

    Http.Reply resumed = http.patch("/v1/workers/drainy", "{\"schedulingPaused\":false}");
    assertEquals(false, resumed.map().get("schedulingPaused"));
    assertEquals(null, resumed.map().get("drain"), "a resume ends the drain");
    assertTrue(resumed.map().containsKey("drain"), "shown as null, as every field of the resource");
    assertEquals(null, workers.findById("drainy").orElseThrow().drainStartedAt());
  }

  @Test
  void aBadDrainIsA400NamingTheDeadlineAndChangesNothing() {
    assertEquals(201, http.post("/v1/workers", worker("undrained", "m-u", 4)).status());
    for (String bad :
        List.of(
            "{\"deadline\":\"tomorrow\"}",
            "{\"deadline\":7}",
            "{\"deadline\":\"1h\",\"force\":true}")) {
      Http.Reply reply = http.post("/v1/workers/undrained/drain", bad);
      assertEquals(400, reply.status(), bad + " -> " + reply);
      assertTrue(reply.isProblem());
      assertTrue(
          reply.detail().contains("deadline") || reply.detail().contains("force"), reply.detail());
    }
    Http.Reply forced =
        http.post(
            "/v1/workers/undrained/drain",
            "{\"deadline\":\"2030-01-01T00:00:00Z\",\"force\":true}");
    assertEquals(400, forced.status(), forced.toString());
    assertTrue(forced.detail().startsWith("force: is not a field"), forced.detail());
    Map<String, Object> w = http.get("/v1/workers/undrained").map();
    assertEquals(false, w.get("schedulingPaused"));
    assertEquals(null, w.get("drain"));
    assertEquals(404, http.post("/v1/workers/nobody/drain", "").status());
  }

  @Test
  void listsPageByNameAndDeleteRemoves() {
    for (String name : List.of("list-c", "list-a", "list-b")) {
      assertEquals(201, http.post("/v1/workers", worker(name, "m-" + name, 2)).status());
    }
    List<String> names = new ArrayList<>();
    String cursor = null;
    do {
      Http.Reply page =
          http.get("/v1/workers?limit=1" + (cursor == null ? "" : "&cursor=" + cursor));
      assertEquals(200, page.status(), page.toString());
      page.items().forEach(i -> names.add((String) i.get("name")));
      cursor = (String) page.map().get("nextCursor");
    } while (cursor != null);
    List<String> listed = names.stream().filter(n -> n.startsWith("list-")).toList();
    assertEquals(List.of("list-a", "list-b", "list-c"), listed);
    List<String> selected = new ArrayList<>();
    cursor = null;
    do {
      Http.Reply page =
          http.get(
              "/v1/workers?labelSelector=disk%3Dssd&limit=1"
                  + (cursor == null ? "" : "&cursor=" + cursor));
      assertEquals(200, page.status(), page.toString());
      page.items().forEach(i -> selected.add((String) i.get("name")));
      cursor = (String) page.map().get("nextCursor");
    } while (cursor != null);
    assertEquals(
        listed, selected.stream().filter(n -> n.startsWith("list-")).toList(), "one a page");
    assertTrue(http.get("/v1/workers?labelSelector=disk%3Dhdd").items().isEmpty());

    assertEquals(204, http.delete("/v1/workers/list-b").status());
    assertEquals(404, http.get("/v1/workers/list-b").status());
    assertEquals(404, http.delete("/v1/workers/list-b").status());
    // A cursor is a position by name: any name continues after it, as its document says.
    Http.Reply after = http.get("/v1/workers?cursor=list-a");
    assertEquals(200, after.status(), after.toString());
    assertEquals(
        List.of("list-c"),
        after.items().stream()
            .map(i -> (String) i.get("name"))
            .filter(n -> n.startsWith("list-"))
            .toList());
  }
}
