package dev.rota.host;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * TLS both ways, in production mode: the host's API serves HTTPS with its certificate (a PKCS12
 * given by ROTA_API_TLS_KEYSTORE), its agent trusts that certificate by ROTA_CONTROLLER_CA and
 * serves its own task API over HTTPS with the certificate it generated, pinned at its registration;
 * a VM runs. Nothing answers plain HTTP, and a client trusting only the public CAs is refused.
 */
class ApiTlsIT {
  @Test
  void theApiAndTheAgentsServeHttpsAndEachSideTrustsOnlyTheOther() throws Exception {
    try (ProductionStack stack =
        ProductionStack.start(
            ProductionStack.folder("api-tls"),
            1,
            1,
            Map.of("ROTA_SCHEDULER_INTERVAL", "1s"),
            RealServices.newPostgresDatabase(),
            true)) {
      RotaClient api = stack.admin(0);
      assertTrue(api.base().startsWith("https://"), api.base());
      Map<String, Object> worker = api.items("/v1/workers").get(0);
      assertTrue(
          ((String) worker.get("endpoint")).startsWith("https://"),
          "the agent serves HTTPS: " + worker);
      assertTrue(
          String.valueOf(worker.get("certificateSha256")).matches("[0-9a-f]{64}"),
          "its certificate pinned: " + worker);

      RotaClient.Reply created =
          api.api("POST", "/v1/vms", "{\"name\":\"over-tls\",\"command\":[\"sleep\",\"3711\"]}");
      assertEquals(201, created.status(), created.body());
      eventually(
          "running, placed and probed over HTTPS",
          () -> "running".equals(api.vm("over-tls").get("status")));

      String plain = api.base().replace("https://", "http://");
      AssertionError notHttp =
          assertThrows(
              AssertionError.class,
              () -> new RotaClient(plain, stack.adminToken).api("GET", "/v1/vms", null));
      assertTrue(
          notHttp.getCause() instanceof java.io.IOException,
          "no plain HTTP on the API's port: " + notHttp.getCause());
      AssertionError untrusted =
          assertThrows(
              AssertionError.class,
              () -> new RotaClient(api.base(), stack.adminToken).api("GET", "/v1/vms", null));
      assertTrue(
          untrusted.getCause() instanceof javax.net.ssl.SSLHandshakeException,
          "its certificate is no public CA's: " + untrusted.getCause());
      assertEquals(202, api.api("DELETE", "/v1/vms/over-tls", null).status());
      eventually("its process ended", () -> Stack.processes("sleep 3711").isEmpty());
      assertEquals(List.of(), Stack.processes("sleep 3711"));
    }
  }
}
