package dev.rota.api;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code /v1/pools} against the real set and VM workflows on Temporal's test server: what a pool
 * takes and refuses, and the replicas it makes. Claims need running replicas: the end-to-end tests
 * make them.
 */
@MicronautTest
class PoolApiTest {
  @Inject Http http;

  private List<String> replicas(String pool) {
    return http.get("/v1/vms?set=" + pool).items().stream()
        .map(vm -> (String) vm.get("name"))
        .sorted()
        .toList();
  }

  @Test
  @SuppressWarnings("unchecked")
  void aPoolMakesItsReplicasAndShowsWhatItHolds() {
    Http.Reply created =
        http.post(
            "/v1/pools",
            "{\"name\":\"pa\",\"minReady\":2,\"max\":5,\"template\":{\"command\":[\"sleep\",\"1\"]}}");
    assertEquals(201, created.status(), created.toString());
    assertEquals("/v1/pools/pa", created.header("Location"));
    assertEquals(2, created.map().get("minReady"));
    assertEquals(5, created.map().get("max"));
    assertEquals("running", created.map().get("standby"), "its ready VMs wait running");
    eventually("two replicas", () -> replicas("pa").equals(List.of("pa-0", "pa-1")));
    Map<String, Object> status = (Map<String, Object>) http.get("/v1/pools/pa").map().get("status");
    assertEquals(0, status.get("ready"));
    assertEquals(2, status.get("starting"));
    assertEquals(0, status.get("claimed"));
    assertTrue(
        http.get("/v1/pools").items().stream().anyMatch(p -> "pa".equals(p.get("name"))), "listed");
    assertTrue(
        http.get("/v1/vm-sets").items().stream().noneMatch(p -> "pa".equals(p.get("name"))),
        "not among the sets");
    assertEquals(404, http.get("/v1/vm-sets/pa").status(), "a pool is not a set to the API");
    assertTrue(
        http.get("/v1/pools?namespace=default").items().stream()
            .anyMatch(p -> "pa".equals(p.get("name"))),
        "listed in its namespace");
    http.put("/v1/namespaces/pools-elsewhere", "{}");
    assertEquals(
        List.of(), http.get("/v1/pools?namespace=pools-elsewhere").items(), "not another's");

    Http.Reply claim = http.post("/v1/vms", "{\"name\":\"pa-job\",\"fromPool\":\"pa\"}");
    assertEquals(409, claim.status(), claim.toString());
    assertTrue(claim.toString().contains("no replica ready"), claim.toString());
    assertEquals(404, http.get("/v1/vms/pa-job").status(), "a refused claim makes nothing");

    assertEquals(202, http.delete("/v1/pools/pa").status());
    eventually("its replicas gone", () -> replicas("pa").isEmpty());
    eventually("the pool gone", () -> http.get("/v1/pools/pa").status() == 404);
  }

  @Test
  void badPoolsAndClaimsAreRefusedNamingTheField() {
    String template = "\"template\":{\"command\":[\"sleep\",\"1\"]}";
    assertField(
        http.post("/v1/pools", "{\"name\":\"pb\",\"minReady\":3,\"max\":2," + template + "}"),
        "max");
    assertSays(
        http.post(
            "/v1/pools",
            "{\"name\":\"pb\",\"minReady\":1,\"max\":2,\"standby\":\"suspended\","
                + "\"template\":{\"runtime\":\"qemu\",\"image\":\"https://example.com/i.qcow2\"}}"),
        "standby: suspended is for a template whose VMs can be suspended: its disk goes with its"
            + " task");
    assertSays(
        http.post(
            "/v1/pools",
            "{\"name\":\"pb\",\"minReady\":1,\"max\":2,\"standby\":\"suspended\","
                + template
                + "}"),
        "standby: suspended is for a template whose VMs can be suspended: only qemu VMs");
    assertField(
        http.post(
            "/v1/pools",
            "{\"name\":\"pb\",\"minReady\":1,\"max\":2,\"standby\":\"paused\"," + template + "}"),
        "standby");
    assertField(
        http.post(
            "/v1/pools",
            "{\"name\":\"pb\",\"minReady\":1,\"max\":2,\"template\":{\"command\":[\"sleep\",\"1\"],"
                + "\"fromPool\":\"x\"}}"),
        "template.fromPool");
    assertField(
        http.post(
            "/v1/pools", "{\"name\":\"pb\",\"minReady\":1,\"max\":2,\"size\":3," + template + "}"),
        "size");
    assertEquals(404, http.get("/v1/pools/pb").status(), "nothing stored");
    assertField(
        http.post("/v1/vms", "{\"name\":\"pc\",\"fromPool\":\"pb\",\"command\":[\"sleep\",\"1\"]}"),
        "command");
    assertEquals(404, http.post("/v1/vms", "{\"name\":\"pc\",\"fromPool\":\"pb\"}").status());
    assertField(
        http.post(
            "/v1/vms",
            "{\"name\":\"pc\",\"fromPool\":\"pb\",\"guest\":{\"userData\":\"x\",\"kernel\":\"k\"}}"),
        "guest.kernel");
    assertEquals(
        201,
        http.post("/v1/pools", "{\"name\":\"pd\",\"minReady\":0,\"max\":1," + template + "}")
            .status());
    Http.Reply processGuest =
        http.post(
            "/v1/vms", "{\"name\":\"pc\",\"fromPool\":\"pd\",\"guest\":{\"userData\":\"x\"}}");
    assertEquals(409, processGuest.status(), processGuest.toString());
    assertTrue(
        processGuest.toString().contains("guest.userData: pool 'pd' runs process VMs"),
        processGuest.toString());
    assertEquals(404, http.get("/v1/vms/pc").status(), "nothing claimed");
    assertField(
        http.post("/v1/vms/batch", "{\"items\":[{\"name\":\"pc\",\"fromPool\":\"pb\"}]}"),
        "items[0].fromPool");
  }

  /**
   * A pool of VMs that can be suspended may keep them so, and says it does; a persistent disk is
   * one such (each replica's own, kept by the VM that claims it).
   */
  @Test
  void aPoolOfVmsThatCanBeSuspendedKeepsThemSuspended() {
    Http.Reply created =
        http.post(
            "/v1/pools",
            "{\"name\":\"ps\",\"minReady\":0,\"max\":1,\"standby\":\"suspended\","
                + "\"template\":{\"runtime\":\"qemu\",\"image\":\"https://example.com/i.qcow2\","
                + "\"disk\":{\"persistent\":true}}}");
    assertEquals(201, created.status(), created.toString());
    assertEquals("suspended", created.map().get("standby"));
    assertEquals("suspended", http.get("/v1/pools/ps").map().get("standby"));
    assertEquals(202, http.delete("/v1/pools/ps").status());
  }

  private static void assertSays(Http.Reply reply, String text) {
    assertEquals(400, reply.status(), reply.toString());
    assertTrue(reply.toString().contains(text), text + ": " + reply);
  }

  private static void assertField(Http.Reply reply, String field) {
    assertEquals(400, reply.status(), reply.toString());
    assertTrue(reply.toString().contains(field + ":"), field + ": " + reply);
  }
}
