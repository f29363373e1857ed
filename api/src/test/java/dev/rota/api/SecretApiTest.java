package dev.rota.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code /v1/secrets}: written, never read back; VMs refer to them by name. */
@MicronautTest(transactional = false)
class SecretApiTest {
  private static final String VALUE = "tok-3f9a1c77e2b84d05";

  @Inject Http http;
  @Inject dev.rota.store.SecretRepository secrets;

  @Test
  void aSecretIsWrittenAndNeverShown() {
    Http.Reply created =
        http.post("/v1/secrets", "{\"name\":\"runner-token\",\"value\":\"" + VALUE + "\"}");
    assertEquals(201, created.status(), created.toString());
    assertEquals("runner-token", created.map().get("name"));
    for (Http.Reply r :
        new Http.Reply[] {
          created,
          http.get("/v1/secrets"),
          http.get("/v1/secrets/runner-token"),
          http.put("/v1/secrets/runner-token", "{\"value\":\"" + VALUE + "-2\"}")
        }) {
      assertEquals(true, r.status() < 300, r.toString());
      assertFalse(r.body().contains(VALUE), "no answer holds the value: " + r);
    }
    String sealed = secrets.findById("runner-token").orElseThrow().sealed();
    assertFalse(sealed.contains(VALUE), "stored sealed");
    assertEquals(
        409,
        http.post("/v1/secrets", "{\"name\":\"runner-token\",\"value\":\"x\"}").status(),
        "a name is one secret's");
    assertEquals(204, http.delete("/v1/secrets/runner-token").status());
    assertEquals(404, http.get("/v1/secrets/runner-token").status());
  }

  @Test
  void aVmShowsTheSecretsItRefersToByNameOnly() {
    assertEquals(
        201,
        http.post("/v1/secrets", "{\"name\":\"ci-token\",\"value\":\"" + VALUE + "\"}").status());
    Http.Reply made =
        http.post(
            "/v1/vms",
            "{\"name\":\"runner\",\"command\":[\"sleep\",\"60\"],"
                + "\"env\":{\"TOKEN\":{\"secretRef\":\"ci-token\"},\"MODE\":\"ci\"}}");
    assertEquals(201, made.status(), made.toString());
    for (Http.Reply r :
        new Http.Reply[] {
          made, http.get("/v1/vms/runner"), http.get("/v1/vms"), http.get("/v1/vms/runner/events")
        }) {
      assertFalse(r.body().contains(VALUE), "no view holds the value: " + r);
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> env = (Map<String, Object>) http.get("/v1/vms/runner").map().get("env");
    assertEquals(Map.of("TOKEN", Map.of("secretRef", "ci-token"), "MODE", "ci"), env);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"name\":\"x\"}|value",
        "{\"name\":\"Bad_Name\",\"value\":\"v\"}|name",
        "{\"name\":\"x\",\"value\":\"v\",\"shown\":true}|shown",
      })
  void aBadSecretNamesItsFieldAndStoresNothing(String body, String field) {
    Http.Reply r = http.post("/v1/secrets", body);
    assertEquals(400, r.status(), r.toString());
    assertTrue(r.detail().contains(field), r.toString());
    assertNull(secrets.findById("x").orElse(null));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "\"env\":{\"TOKEN\":{\"secretRef\":\"nowhere\"}}|env.TOKEN.secretRef",
        "\"env\":{\"TOKEN\":{\"secretRef\":\"Not A Name\"}}|env.TOKEN.secretRef",
        "\"env\":{\"TOKEN\":{\"secret\":\"ci\"}}|env.TOKEN",
        "\"env\":{\"TOKEN\":7}|env.TOKEN",
        "\"runtime\":\"qemu\",\"image\":\"file:///d.qcow2\","
            + "\"guest\":{\"userData\":{\"secretRef\":\"nowhere\"}}|guest.userData.secretRef",
        "\"runtime\":\"qemu\",\"image\":\"file:///d.qcow2\","
            + "\"guest\":{\"startupScript\":[1]}|guest.startupScript",
      })
  void aBadReferenceNamesItsFieldAndStoresNothing(String fields, String field) {
    String command = fields.contains("qemu") ? "" : "\"command\":[\"true\"],";
    Http.Reply r = http.post("/v1/vms", "{\"name\":\"refers\"," + command + fields + "}");
    assertEquals(400, r.status(), r.toString());
    assertTrue(r.detail().startsWith(field + ":"), r.toString());
    assertEquals(404, http.get("/v1/vms/refers").status(), "nothing stored");
  }
}
