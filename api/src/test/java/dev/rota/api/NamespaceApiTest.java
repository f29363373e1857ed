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
 * Namespaces and their quotas as a user meets them: made by PUT, counted as VMs come and go, a
 * submission past a limit a 403 that names it and stores nothing, and what lives in one usable by
 * what lives there only.
 */
@MicronautTest
class NamespaceApiTest {
  @Inject Http http;

  private Map<String, Object> used(String namespace) {
    return (Map<String, Object>) http.get("/v1/namespaces/" + namespace).map().get("used");
  }

  @Test
  void aNamespaceIsMadeWithItsQuotaAndCountsWhatItsVmsHold() {
    Http.Reply made =
        http.put(
            "/v1/namespaces/team-a",
            "{\"description\":\"team A\",\"quota\":{\"cpu\":3,\"memory\":\"2Gi\",\"vms\":5}}");
    assertEquals(200, made.status(), made.toString());
    assertEquals(Map.of("cpu", 3, "memory", 2048, "vms", 5), made.map().get("quota"));
    assertEquals(Map.of("cpu", 0, "memory", 0, "vms", 0, "disk", 0), made.map().get("used"));

    Http.Reply vm =
        http.post(
            "/v1/vms",
            "{\"name\":\"qa-one\",\"namespace\":\"team-a\",\"command\":[\"sleep\",\"60\"],"
                + "\"resources\":{\"cpu\":2,\"memory\":512}}");
    assertEquals(201, vm.status(), vm.toString());
    assertEquals("team-a", vm.map().get("namespace"));
    assertEquals(Map.of("cpu", 2, "memory", 512, "vms", 1, "disk", 0), used("team-a"));

    Http.Reply over =
        http.post(
            "/v1/vms",
            "{\"name\":\"qa-two\",\"namespace\":\"team-a\",\"command\":[\"sleep\",\"60\"],"
                + "\"resources\":{\"cpu\":2,\"memory\":512}}");
    assertEquals(403, over.status(), over.toString());
    assertTrue(over.isProblem());
    assertEquals(
        "namespace team-a: cpu quota of 3: 2 in use, 2 more asked", over.detail(), over.detail());
    assertEquals(404, http.get("/v1/vms/qa-two").status(), "nothing was stored");
    assertEquals(Map.of("cpu", 2, "memory", 512, "vms", 1, "disk", 0), used("team-a"));

    // One that fits is taken; a batch that would pass a limit is refused whole.
    assertEquals(
        201,
        http.post(
                "/v1/vms",
                "{\"name\":\"qa-three\",\"namespace\":\"team-a\",\"command\":[\"true\"],"
                    + "\"resources\":{\"cpu\":1,\"memory\":1024}}")
            .status());
    http.put("/v1/namespaces/team-m", "{\"quota\":{\"memory\":1024}}");
    Http.Reply batch =
        http.post(
            "/v1/vms/batch",
            "{\"items\":[{\"name\":\"qa-b1\",\"namespace\":\"team-m\",\"command\":[\"true\"],"
                + "\"resources\":{\"memory\":512}},{\"name\":\"qa-b2\","
                + "\"namespace\":\"team-m\",\"command\":[\"true\"],"
                + "\"resources\":{\"memory\":768}}]}");
    assertEquals(403, batch.status(), batch.toString());
    assertEquals(
        "namespace team-m: memory quota of 1024 MiB: 0 MiB in use, 1280 MiB more asked",
        batch.detail());
    assertEquals(404, http.get("/v1/vms/qa-b1").status(), "nothing of the batch was stored");

    // The list filters by namespace; the VM's deletion gives its share back.
    List<Map<String, Object>> listed =
        (List<Map<String, Object>>) http.get("/v1/vms?namespace=team-a").map().get("items");
    assertEquals(List.of("qa-one", "qa-three"), listed.stream().map(v -> v.get("name")).toList());
    assertEquals(202, http.delete("/v1/vms/qa-one").status());
    eventually("qa-one is gone", () -> http.get("/v1/vms/qa-one").status() == 404);
    eventually(
        "its share is given back",
        () -> used("team-a").equals(Map.of("cpu", 1, "memory", 1024, "vms", 1, "disk", 0)));
    assertEquals(
        201,
        http.post(
                "/v1/vms",
                "{\"name\":\"qa-two\",\"namespace\":\"team-a\",\"command\":[\"sleep\",\"60\"],"
                    + "\"resources\":{\"cpu\":2,\"memory\":512}}")
            .status(),
        "room again");
  }

  @Test
  void whatNamesANamespaceThatDoesNotExistIsA400NamingTheField() {
    Http.Reply vm =
        http.post(
            "/v1/vms", "{\"name\":\"nowhere\",\"namespace\":\"nope\",\"command\":[\"true\"]}");
    assertEquals(400, vm.status(), vm.toString());
    assertTrue(vm.detail().startsWith("namespace: no namespace named nope"), vm.detail());
    assertEquals(404, http.get("/v1/vms/nowhere").status());
    Http.Reply secret =
        http.post("/v1/secrets", "{\"name\":\"s-nowhere\",\"value\":\"x\",\"namespace\":\"nope\"}");
    assertEquals(400, secret.status(), secret.toString());
    assertEquals(404, http.get("/v1/secrets/s-nowhere").status());
    Http.Reply set =
        http.post(
            "/v1/vm-sets",
            "{\"name\":\"set-nowhere\",\"replicas\":1,\"namespace\":\"nope\","
                + "\"template\":{\"command\":[\"true\"]}}");
    assertEquals(400, set.status(), set.toString());
    assertTrue(set.detail().startsWith("namespace:"), set.detail());
    assertEquals(404, http.get("/v1/vm-sets/set-nowhere").status());
    Http.Reply badQuota = http.put("/v1/namespaces/team-q", "{\"quota\":{\"cpu\":-1,\"gpus\":2}}");
    assertEquals(400, badQuota.status(), badQuota.toString());
    assertEquals(404, http.get("/v1/namespaces/team-q").status(), "nothing was made");
    Http.Reply badMemory = http.put("/v1/namespaces/team-q", "{\"quota\":{\"memory\":\"lots\"}}");
    assertEquals(400, badMemory.status(), badMemory.toString());
    assertTrue(badMemory.detail().startsWith("quota.memory"), badMemory.detail());
  }

  @Test
  void aSetWhoseReplicasPassTheQuotaIsRefusedAndItsReplicasLiveInItsNamespace() {
    http.put("/v1/namespaces/team-s", "{\"quota\":{\"vms\":3}}");
    Http.Reply big =
        http.post(
            "/v1/vm-sets",
            "{\"name\":\"big\",\"replicas\":4,\"namespace\":\"team-s\","
                + "\"template\":{\"command\":[\"sleep\",\"60\"]}}");
    assertEquals(403, big.status(), big.toString());
    assertEquals("namespace team-s: vms quota of 3: 0 in use, 4 more asked", big.detail());
    assertEquals(404, http.get("/v1/vm-sets/big").status());

    Http.Reply fits =
        http.post(
            "/v1/vm-sets",
            "{\"name\":\"fits\",\"replicas\":2,\"namespace\":\"team-s\","
                + "\"template\":{\"command\":[\"sleep\",\"60\"]}}");
    assertEquals(201, fits.status(), fits.toString());
    eventually("its replicas are made", () -> used("team-s").get("vms").equals(2));
    assertEquals("team-s", http.get("/v1/vms/fits-0").map().get("namespace"));
    Http.Reply scale = http.patch("/v1/vm-sets/fits", "{\"replicas\":4}");
    assertEquals(403, scale.status(), scale.toString());
    assertTrue(scale.detail().contains("vms quota of 3: 2 in use, 2 more asked"), scale.detail());
    assertEquals(2, http.get("/v1/vm-sets/fits").map().get("replicas"), "unchanged");
    Http.Reply moved =
        http.put(
            "/v1/vm-sets/fits",
            "{\"name\":\"fits\",\"replicas\":2,\"template\":{\"command\":[\"sleep\",\"60\"]}}");
    assertEquals(409, moved.status(), moved.toString());
    assertTrue(moved.detail().contains("stays in the namespace"), moved.detail());

    // A replica lost while the quota is lowered waits, the set saying why, until there is room.
    http.put("/v1/namespaces/team-s", "{\"quota\":{\"vms\":1}}");
    assertEquals(202, http.delete("/v1/vms/fits-1").status());
    eventually(
        "the set says its replica waits for the quota",
        () ->
            String.valueOf(
                    ((Map<String, Object>) http.get("/v1/vm-sets/fits").map().get("status"))
                        .get("message"))
                .startsWith("its next replicas wait for room in the quota: namespace team-s: vms"));
    assertEquals(Map.of("cpu", 1, "memory", 512, "vms", 1, "disk", 0), used("team-s"));
    http.put("/v1/namespaces/team-s", "{\"quota\":{\"vms\":3}}");
    eventually("the replica is made again", () -> used("team-s").get("vms").equals(2));
  }

  @Test
  void secretsAndTemplatesServeTheirOwnNamespaceOnly() {
    http.put("/v1/namespaces/team-x", "{}");
    assertEquals(
        201,
        http.post("/v1/secrets", "{\"name\":\"x-token\",\"value\":\"v\",\"namespace\":\"team-x\"}")
            .status());
    Http.Reply elsewhere =
        http.post(
            "/v1/vms",
            "{\"name\":\"x-user\",\"command\":[\"true\"],"
                + "\"env\":{\"TOKEN\":{\"secretRef\":\"x-token\"}}}");
    assertEquals(400, elsewhere.status(), elsewhere.toString());
    assertTrue(
        elsewhere
            .detail()
            .startsWith(
                "env.TOKEN.secretRef: secret 'x-token' does not exist in" + " namespace default"),
        elsewhere.detail());

    Http.Reply template =
        http.post(
            "/v1/templates",
            "{\"name\":\"x-runner\",\"namespace\":\"team-x\",\"spec\":{\"command\":[\"true\"]}}");
    assertEquals(201, template.status(), template.toString());
    assertEquals("team-x", template.map().get("namespace"));
    Http.Reply fromOther =
        http.post(
            "/v1/vms",
            "{\"name\":\"x-made\",\"namespace\":\"default\",\"fromTemplate\":\"x-runner\"}");
    assertEquals(400, fromOther.status(), fromOther.toString());
    assertTrue(fromOther.detail().startsWith("fromTemplate:"), fromOther.detail());
    Http.Reply made = http.post("/v1/vms", "{\"name\":\"x-made\",\"fromTemplate\":\"x-runner\"}");
    assertEquals(201, made.status(), made.toString());
    assertEquals("team-x", made.map().get("namespace"), "made where its template lives");
    Http.Reply inSpec =
        http.post(
            "/v1/templates",
            "{\"name\":\"x-bad\",\"spec\":{\"namespace\":\"team-x\",\"command\":[\"true\"]}}");
    assertEquals(400, inSpec.status(), inSpec.toString());
    assertTrue(inSpec.detail().startsWith("spec.namespace"), inSpec.detail());
  }

  @Test
  void onlyAnEmptyNamespaceIsDeletedAndDefaultNever() {
    http.put("/v1/namespaces/team-d", "{}");
    http.post("/v1/secrets", "{\"name\":\"d-token\",\"value\":\"v\",\"namespace\":\"team-d\"}");
    Http.Reply holding = http.delete("/v1/namespaces/team-d");
    assertEquals(409, holding.status(), holding.toString());
    assertTrue(holding.detail().contains("1 secrets"), holding.detail());
    assertEquals(204, http.delete("/v1/secrets/d-token").status());
    assertEquals(204, http.delete("/v1/namespaces/team-d").status());
    assertEquals(404, http.get("/v1/namespaces/team-d").status());
    assertEquals(409, http.delete("/v1/namespaces/default").status());
    List<Map<String, Object>> all =
        (List<Map<String, Object>>) http.get("/v1/namespaces").map().get("items");
    assertTrue(all.stream().anyMatch(n -> n.get("name").equals("default")), all.toString());
  }
}
