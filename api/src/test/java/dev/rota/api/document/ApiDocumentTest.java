package dev.rota.api.document;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/** The OpenAPI document as served: the generated one, made 3.1, with the overlay laid over it. */
class ApiDocumentTest {
  @SuppressWarnings("unchecked")
  private static final Map<String, Object> DOCUMENT =
      new Yaml().load(ApiDocumentController.render());

  @Test
  @SuppressWarnings("unchecked")
  void everyOperationUnderV1NamesItsErrorsAndHasItsOwnId() {
    assertEquals("3.1.0", DOCUMENT.get("openapi"));
    Map<String, Map<String, Map<String, Object>>> paths =
        (Map<String, Map<String, Map<String, Object>>>) DOCUMENT.get("paths");
    java.util.Set<String> ids = new java.util.HashSet<>();
    paths.forEach(
        (path, operations) ->
            operations.forEach(
                (method, operation) -> {
                  assertTrue(
                      ids.add((String) operation.get("operationId")),
                      "one id per operation: " + method + " " + path);
                  Map<String, Object> responses = (Map<String, Object>) operation.get("responses");
                  if (path.startsWith("/v1/")) {
                    for (String status : List.of("401", "403", "429", "503")) {
                      assertTrue(
                          responses.containsKey(status), method + " " + path + " lists " + status);
                    }
                  }
                }));
    assertTrue(
        ((Map<String, Object>)
                ((Map<String, Object>) paths.get("/v1/vms").get("post").get("responses"))
                    .get("201"))
            .containsKey("links"),
        "a create links to the calls on what it made");
  }

  @Test
  @SuppressWarnings("unchecked")
  void aBodysSchemaRefusesWhatTheApiRefusesAndNamesWhatItTakesBack() {
    Map<String, Object> schemas =
        (Map<String, Object>) ((Map<String, Object>) DOCUMENT.get("components")).get("schemas");
    for (String body :
        List.of(
            "VmRequest",
            "VmBatchRequest",
            "VmSetRequest",
            "WorkerRequest",
            "DrainRequest",
            "ServiceAccountRequest",
            "ClusterSettingsRequest",
            "GuestRequest",
            "TaskReportRequestReportedTask")) {
      Map<String, Object> schema = (Map<String, Object>) schemas.get(body);
      assertEquals(false, schema.get("additionalProperties"), body + " is closed");
    }
    Map<String, Object> vm =
        (Map<String, Object>) ((Map<String, Object>) schemas.get("VmRequest")).get("properties");
    assertTrue(vm.containsKey("status"), "a VM as shown may be sent back: " + vm.keySet());
    Map<String, Object> template =
        (Map<String, Object>)
            ((Map<String, Object>)
                    ((Map<String, Object>) schemas.get("VmSetRequest")).get("properties"))
                .get("template");
    assertEquals(false, template.get("additionalProperties"), "a set's template too");
  }

  @Test
  void theReferenceParserReadsTheDocumentWithoutAWord() {
    io.swagger.v3.parser.core.models.ParseOptions options =
        new io.swagger.v3.parser.core.models.ParseOptions();
    options.setResolve(true);
    io.swagger.v3.parser.core.models.SwaggerParseResult parsed =
        new io.swagger.v3.parser.OpenAPIV3Parser()
            .readContents(ApiDocumentController.render(), null, options);
    assertTrue(parsed.getOpenAPI() != null, String.valueOf(parsed.getMessages()));
    assertEquals(List.of(), parsed.getMessages());
  }

  @Test
  @SuppressWarnings("unchecked")
  void everyOperationHasASummaryAndATagAndEverySchemaAPlainNameThatItsReferencesFind() {
    Map<String, Map<String, Map<String, Object>>> paths =
        (Map<String, Map<String, Map<String, Object>>>) DOCUMENT.get("paths");
    java.util.Set<String> declaredTags = new java.util.HashSet<>();
    ((List<Map<String, Object>>) DOCUMENT.get("tags"))
        .forEach(t -> declaredTags.add((String) t.get("name")));
    paths.forEach(
        (path, operations) ->
            operations.forEach(
                (method, operation) -> {
                  String where = method + " " + path;
                  assertTrue(operation.get("summary") instanceof String s && !s.isBlank(), where);
                  List<String> tags = (List<String>) operation.get("tags");
                  assertTrue(tags != null && tags.size() == 1, where + " has one tag: " + tags);
                  assertTrue(declaredTags.containsAll(tags), where + "'s tag is described");
                }));
    Map<String, Object> schemas =
        (Map<String, Object>) ((Map<String, Object>) DOCUMENT.get("components")).get("schemas");
    for (String name : schemas.keySet()) {
      assertTrue(name.matches("[A-Z][A-Za-z0-9]*"), "a plain schema name: " + name);
    }
    assertTrue(schemas.containsKey("VmEventViewPage"), schemas.keySet().toString());
    java.util.regex.Matcher ref =
        java.util.regex.Pattern.compile("#/components/schemas/([A-Za-z0-9_.]+)")
            .matcher(ApiDocumentController.render());
    while (ref.find()) {
      assertTrue(schemas.containsKey(ref.group(1)), "a reference finds its schema: " + ref.group());
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void nullableBecomesANullTypeAndTheOverlayAddsWhatAnnotationsCannotSay() {
    Map<String, Object> schemas =
        (Map<String, Object>) ((Map<String, Object>) DOCUMENT.get("components")).get("schemas");
    Map<String, Object> vm = (Map<String, Object>) schemas.get("VmRequest");
    Map<String, Object> image =
        (Map<String, Object>) ((Map<String, Object>) vm.get("properties")).get("image");
    assertEquals(List.of("string", "null"), image.get("type"));
    assertTrue(
        ((Map<String, Object>) ((Map<String, Object>) vm.get("properties")).get("env"))
            .containsKey("propertyNames"));
    assertTrue(schemas.containsKey("VmRules"));
    assertTrue(!ApiDocumentController.render().contains("nullable"), "no 3.0 keyword is left");
  }

  @Test
  void anOverlayForAPathTheControllersDoNotHaveIsRefused() {
    Map<String, Object> generated = Map.of("paths", Map.of("/v1/vms", Map.of("get", Map.of())));
    IllegalStateException stray =
        assertThrows(
            IllegalStateException.class,
            () ->
                OpenApiOverlay.apply(
                    generated, Map.of("paths", Map.of("/v1/vmz", Map.of("get", Map.of())))));
    assertTrue(stray.getMessage().contains("paths /v1/vmz"), stray.getMessage());
    assertThrows(
        IllegalStateException.class,
        () ->
            OpenApiOverlay.apply(
                generated, Map.of("paths", Map.of("/v1/vms", Map.of("put", Map.of())))));
    Map<String, Object> merged =
        OpenApiOverlay.apply(
            generated,
            Map.of("paths", Map.of("/v1/vms", Map.of("get", Map.of("description", "refined")))));
    assertEquals(
        "refined",
        ((Map<?, ?>) ((Map<?, ?>) ((Map<?, ?>) merged.get("paths")).get("/v1/vms")).get("get"))
            .get("description"));
  }
}
