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
 * {@code /v1/templates}: a VM spec with typed parameters that VMs and sets are made of, and the
 * cluster's instance sizes; every bad input a 400 naming its field, with nothing stored.
 */
@MicronautTest(transactional = false)
class TemplateApiTest {
  @Inject Http http;

  private static final String RUNNER =
      """
      {"name": "runner", "description": "a CI runner",
       "spec": {"command": ["sleep", "60"], "env": {"MODE": "ci"}, "resources": {"cpu": 1}},
       "parameters": [
         {"name": "branch", "type": "string", "field": "env.BRANCH"},
         {"name": "cpus", "type": "integer", "field": "resources.cpu", "default": 2},
         {"name": "run", "type": "list", "field": "command"}]}""";

  @Test
  @SuppressWarnings("unchecked")
  void aVmIsMadeOfATemplateItsParametersPutAtTheirFields() {
    Http.Reply created = http.post("/v1/templates", RUNNER);
    assertEquals(201, created.status(), created.toString());
    assertEquals("/v1/templates/runner", created.header("Location"));
    assertEquals(409, http.post("/v1/templates", RUNNER).status());
    assertTrue(
        http.get("/v1/templates").items().stream().anyMatch(t -> "runner".equals(t.get("name"))));
    Map<String, Object> cpus =
        ((List<Map<String, Object>>) http.get("/v1/templates/runner").map().get("parameters"))
            .get(1);
    assertEquals(2, cpus.get("default"));

    Http.Reply vm =
        http.post(
            "/v1/vms",
            "{\"name\": \"job-1\", \"fromTemplate\": \"runner\","
                + " \"parameters\": {\"branch\": \"main\", \"run\": [\"sleep\", \"5\"]}}");
    assertEquals(201, vm.status(), vm.toString());
    assertEquals(List.of("sleep", "5"), vm.map().get("command"));
    assertEquals(Map.of("MODE", "ci", "BRANCH", "main"), vm.map().get("env"));
    assertEquals(2, ((Map<String, Object>) vm.map().get("resources")).get("cpu"), "its default");

    // A set made of it: the set keeps the spec with the values.
    Http.Reply set =
        http.post(
            "/v1/vm-sets",
            "{\"name\": \"runners\", \"replicas\": 2, \"fromTemplate\": \"runner\","
                + " \"parameters\": {\"branch\": \"dev\", \"run\": [\"sleep\", \"7\"]}}");
    assertEquals(201, set.status(), set.toString());
    Map<String, Object> kept = (Map<String, Object>) set.map().get("template");
    assertEquals(List.of("sleep", "7"), kept.get("command"));
    assertEquals(Map.of("MODE", "ci", "BRANCH", "dev"), kept.get("env"));
    assertEquals(2, ((Map<String, Object>) kept.get("resources")).get("cpu"), "its default");
    for (String[] refused :
        new String[][] {
          {"\"template\": {\"command\": [\"true\"]}, \"fromTemplate\": \"runner\"", "fromTemplate"},
          {
            "\"parameters\": {\"branch\": \"dev\"}, \"template\": {\"command\": [\"true\"]}",
            "parameters"
          },
          {
            "\"fromTemplate\": \"runner\", \"parameters\": {\"run\": [\"true\"]}",
            "parameters.branch"
          },
          {"\"fromTemplate\": \"nope\"", "fromTemplate"},
          {"\"template\": {\"fromTemplate\": \"runner\"}", "template.fromTemplate"},
          {"\"spread\": \"none\"", "template"},
        }) {
      Http.Reply no =
          http.post(
              "/v1/vm-sets", "{\"name\": \"runners-2\", \"replicas\": 1, " + refused[0] + "}");
      assertEquals(400, no.status(), refused[0] + " -> " + no);
      assertTrue(no.detail().startsWith(refused[1] + ":"), refused[0] + " -> " + no.detail());
    }
    assertEquals(404, http.get("/v1/vm-sets/runners-2").status(), "nothing stored");

    // A template's change changes no VM made of it.
    assertEquals(
        200, http.put("/v1/templates/runner", RUNNER.replace("\"ci\"", "\"nightly\"")).status());
    assertEquals(
        Map.of("MODE", "ci", "BRANCH", "main"), http.get("/v1/vms/job-1").map().get("env"));
    assertEquals(204, http.delete("/v1/templates/runner").status());
    assertEquals(404, http.get("/v1/templates/runner").status());
    assertEquals(200, http.get("/v1/vms/job-1").status(), "its VMs stay");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"name\":\"j\",\"fromTemplate\":\"runner2\",\"parameters\":{\"run\":[\"true\"]}}|parameters.branch|is required by template runner2",
        "{\"name\":\"j\",\"fromTemplate\":\"runner2\",\"parameters\":{\"branch\":\"m\",\"run\":[\"true\"],\"cpus\":\"many\"}}|parameters.cpus|must be a whole number",
        "{\"name\":\"j\",\"fromTemplate\":\"runner2\",\"parameters\":{\"branch\":\"m\",\"run\":[\"true\"],\"gpus\":1}}|parameters.gpus|template runner2 has no parameter gpus",
        "{\"name\":\"j\",\"fromTemplate\":\"runner2\",\"parameters\":{\"branch\":\"m\",\"run\":\"true\"}}|parameters.run|must be a list of strings",
        "{\"name\":\"j\",\"fromTemplate\":\"runner2\",\"command\":[\"true\"]}|command|cannot be given with fromTemplate",
        "{\"name\":\"j\",\"command\":[\"true\"],\"size\":\"huge\"}|size|no instance size huge",
        "{\"name\":\"j\",\"command\":[\"true\"],\"parameters\":{\"a\":1}}|parameters|are a template's",
      })
  void aVmOfATemplateWithBadParametersIsRefusedNamingTheFieldAndNothingIsStored(
      String body, String field, String says) {
    http.post("/v1/templates", RUNNER.replace("\"runner\"", "\"runner2\""));
    Http.Reply refused = http.post("/v1/vms", body);
    assertEquals(400, refused.status(), refused.toString());
    assertTrue(refused.detail().startsWith(field + ": " + says), refused.detail());
    assertEquals(404, http.get("/v1/vms/j").status(), "nothing stored");
    Http.Reply none = http.post("/v1/vms", "{\"name\":\"j\",\"fromTemplate\":\"nope\"}");
    assertEquals(400, none.status(), "no such template");
    assertTrue(none.detail().startsWith("fromTemplate: template 'nope' does not exist"));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"name\":\"t\",\"spec\":{\"name\":\"x\",\"command\":[\"true\"]}}|spec.name",
        "{\"name\":\"t\",\"spec\":{\"command\":[\"true\"]},\"parameters\":[{\"name\":\"p\",\"type\":\"integer\",\"field\":\"cpus\"}]}|parameters.0.field",
        "{\"name\":\"t\",\"spec\":{\"command\":[\"true\"]},\"parameters\":[{\"name\":\"p\",\"type\":\"integer\",\"field\":\"resources.cpu\",\"default\":\"two\"}]}|parameters.0.default",
        "{\"name\":\"t\",\"spec\":{\"command\":[\"true\"]},\"parameters\":[{\"name\":\"p\",\"type\":\"float\",\"field\":\"resources.cpu\"}]}|parameters.0.type",
        "{\"name\":\"t\",\"spec\":{\"command\":[\"true\"]},\"parameters\":[{\"name\":\"p\",\"type\":\"string\",\"field\":\"env.A\"},{\"name\":\"p\",\"type\":\"string\",\"field\":\"env.B\"}]}|parameters.1.name",
        "{\"name\":\"t\",\"spec\":{\"runtime\":\"process\"}}|spec.command",
        "{\"name\":\"t\",\"spec\":{\"command\":[\"true\"],\"restartPolicy\":\"Sometimes\"}}|spec.restartPolicy",
        "{\"name\":\"t\",\"spec\":{\"command\":[\"true\"]},\"colour\":\"red\"}|colour",
      })
  void aBadTemplateIsRefusedNamingTheFieldAndNothingIsStored(String body, String field) {
    Http.Reply refused = http.post("/v1/templates", body);
    assertEquals(400, refused.status(), refused.toString());
    assertTrue(refused.detail().startsWith(field + ":"), refused.detail());
    assertEquals(404, http.get("/v1/templates/t").status(), "nothing stored");
  }

  private Http.Reply dispatch(String template, String body, String key) {
    return http.send(
        "POST",
        "/v1/templates/" + template + "/dispatch",
        body,
        null,
        key == null ? Map.of() : Map.of("Idempotency-Key", key));
  }

  @Test
  void aDispatchMakesAVmAtOnceAndTheSameKeyFindsTheSameVm() {
    http.post("/v1/templates", RUNNER.replace("\"runner\"", "\"nightly\""));
    String values = "{\"parameters\": {\"branch\": \"main\", \"run\": [\"true\"]}}";
    Http.Reply first = dispatch("nightly", values, "n-42");
    assertEquals(201, first.status(), first.toString());
    String name = (String) first.map().get("name");
    assertTrue(name.matches("nightly-[0-9a-f]{10}"), name);
    Http.Reply again = dispatch("nightly", values, "n-42");
    assertEquals(200, again.status(), again.toString());
    assertEquals(name, again.map().get("name"), "the same key, the same VM");
    Http.Reply other = dispatch("nightly", values, "n-43");
    assertEquals(201, other.status());
    assertTrue(!name.equals(other.map().get("name")));
    assertEquals(201, dispatch("nightly", values, null).status());
    Http.Reply named =
        dispatch(
            "nightly",
            "{\"name\": \"nightly-main\", \"parameters\": {\"branch\": \"m\", \"run\": [\"true\"]}}",
            null);
    assertEquals("nightly-main", named.map().get("name"));

    Http.Reply missing = dispatch("nightly", "{}", null);
    assertEquals(400, missing.status());
    assertTrue(missing.detail().startsWith("parameters.branch:"), missing.detail());
    assertEquals(404, dispatch("nope", values, null).status());
  }

  @Test
  @SuppressWarnings("unchecked")
  void aVmsInstanceSizeGivesTheResourcesItDoesNotGiveItself() {
    Http.Reply put =
        http.put(
            "/v1/cluster-settings",
            "{\"schedulerProfile\":\"optimize-utilization\",\"instanceSizes\":"
                + "{\"small\":{\"cpu\":1,\"memory\":\"1Gi\"},\"large\":{\"cpu\":8,\"memory\":\"16Gi\"}}}");
    assertEquals(200, put.status(), put.toString());
    try {
      assertEquals(
          Map.of("cpu", 8, "memory", 16384),
          ((Map<String, Object>) put.map().get("instanceSizes")).get("large"));
      Http.Reply large =
          http.post("/v1/vms", "{\"name\":\"big\",\"command\":[\"true\"],\"size\":\"large\"}");
      assertEquals(201, large.status(), large.toString());
      assertEquals(Map.of("cpu", 8, "memory", 16384), large.map().get("resources"));
      Http.Reply mine =
          http.post(
              "/v1/vms",
              "{\"name\":\"mine\",\"command\":[\"true\"],\"size\":\"small\",\"resources\":{\"cpu\":2}}");
      assertEquals(Map.of("cpu", 2, "memory", 1024), mine.map().get("resources"));
      Http.Reply bad =
          http.put(
              "/v1/cluster-settings",
              "{\"schedulerProfile\":\"optimize-utilization\",\"instanceSizes\":{\"tiny\":{\"memory\":\"lots\"}}}");
      assertEquals(400, bad.status());
      assertTrue(bad.detail().startsWith("instanceSizes.tiny.memory:"), bad.detail());
    } finally {
      http.put("/v1/cluster-settings", "{\"schedulerProfile\":\"optimize-utilization\"}");
    }
  }
}
