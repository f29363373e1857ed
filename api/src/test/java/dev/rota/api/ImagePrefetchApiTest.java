package dev.rota.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code /v1/images/prefetch}: what is asked is stored, each matching qemu worker is asked for the
 * image in its heartbeat's answer until it holds it, and its progress is what its agent says.
 */
@MicronautTest
class ImagePrefetchApiTest {
  private static final String IMAGE = "oci://registry.example/vms/debian:12";

  @Inject Http http;

  private static String worker(String name, String zone, String runtime) {
    return "{\"name\":\""
        + name
        + "\",\"endpoint\":\"http://127.0.0.1:9101\",\"resources\":{\"cpu\":4,\"memory\":8192},"
        + "\"labels\":{\"zone\":\""
        + zone
        + "\"},\"runtimes\":[\""
        + runtime
        + "\"],\"machineId\":\"m-"
        + name
        + "\"}";
  }

  @Test
  void matchingQemuWorkersAreAskedUntilTheyHoldTheImageAndTheirProgressIsShown() {
    assertEquals(201, http.post("/v1/workers", worker("pf-a", "east", "qemu")).status());
    assertEquals(201, http.post("/v1/workers", worker("pf-b", "east", "qemu")).status());
    assertEquals(201, http.post("/v1/workers", worker("pf-c", "west", "qemu")).status());
    assertEquals(201, http.post("/v1/workers", worker("pf-d", "east", "process")).status());

    Http.Reply created =
        http.post(
            "/v1/images/prefetch",
            "{\"image\":\"" + IMAGE + "\",\"workerSelector\":{\"zone\":\"east\"}}");
    assertEquals(201, created.status(), created.toString());
    String name = (String) created.map().get("name");
    assertEquals("/v1/images/prefetch/" + name, created.header("Location"));
    assertEquals(
        List.of("pf-a", "pf-b"),
        workers(created).stream().map(w -> w.get("worker")).toList(),
        "the east workers that run qemu VMs");
    assertTrue(workers(created).stream().allMatch(w -> w.get("state").equals("waiting")));
    Http.Reply again =
        http.post(
            "/v1/images/prefetch",
            "{\"image\":\"" + IMAGE + "\",\"workerSelector\":{\"zone\":\"east\"}}");
    assertEquals(200, again.status(), "the same asked again is the same prefetch");
    assertEquals(name, again.map().get("name"));

    Http.Reply asked = http.put("/v1/workers/pf-a/heartbeat", null);
    assertEquals(200, asked.status());
    assertEquals(Map.of("prefetch", List.of(IMAGE)), asked.map());
    assertEquals(204, http.put("/v1/workers/pf-c/heartbeat", null).status(), "not its zone");
    assertEquals(204, http.put("/v1/workers/pf-d/heartbeat", null).status(), "no image cache");

    http.put(
        "/v1/workers/pf-a/heartbeat",
        "{\"images\":[],\"pulls\":[{\"image\":\""
            + IMAGE
            + "\",\"state\":\"pulling\",\"message\":\"pulling 40% of 2048 MiB\"}]}");
    http.put(
        "/v1/workers/pf-b/heartbeat",
        "{\"images\":[{\"image\":\""
            + IMAGE
            + "\",\"lastUsedAt\":\"2026-11-26T10:00:00Z\"}],\"pulls\":[]}");
    Http.Reply shown = http.get("/v1/images/prefetch/" + name);
    assertEquals(
        List.of(
            Map.of("worker", "pf-a", "state", "pulling", "message", "pulling 40% of 2048 MiB"),
            Map.of("worker", "pf-b", "state", "held")),
        workers(shown));
    assertEquals(1, shown.map().get("held"));
    assertEquals(204, http.put("/v1/workers/pf-b/heartbeat", null).status(), "it holds it");
    assertEquals(1, http.get("/v1/images/prefetch").items().size());

    assertEquals(204, http.delete("/v1/images/prefetch/" + name).status());
    assertEquals(404, http.get("/v1/images/prefetch/" + name).status());
    assertEquals(204, http.put("/v1/workers/pf-a/heartbeat", null).status(), "no longer asked");
    assertEquals(404, http.delete("/v1/images/prefetch/" + name).status());
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> workers(Http.Reply reply) {
    return (List<Map<String, Object>>) reply.map().get("workers");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          no image       | {}                                                        | image
          not an address | {"image":"debian:12"}                                     | image: must be an https://
          bad oci        | {"image":"oci://registry.example/Vms/x:1"}                | image
          unknown field  | {"image":"oci://r.example/a:1","selector":{"a":"b"}}      | selector
          not a label    | {"image":"oci://r.example/a:1","workerSelector":{"a b":"c"}} | workerSelector
          """)
  void badRequestsAreRefusedNamingTheFieldAndStoreNothing(String why, String body, String field) {
    int before = http.get("/v1/images/prefetch").items().size();
    Http.Reply reply = http.post("/v1/images/prefetch", body);
    assertEquals(400, reply.status(), reply.toString());
    assertTrue(reply.detail().contains(field), why + ": " + reply.detail());
    assertEquals(before, http.get("/v1/images/prefetch").items().size());
  }
}
