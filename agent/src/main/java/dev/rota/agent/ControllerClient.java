package dev.rota.agent;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Calls to the controller's REST API, with this worker's token. */
final class ControllerClient {
  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  private final AgentConfig config;
  private final ObjectMapper json;
  private final HttpClient http;

  ControllerClient(AgentConfig config, ObjectMapper json) {
    this.config = config;
    this.json = json;
    HttpClient.Builder client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3));
    if (config.controllerCa() != null) {
      client.sslContext(trusting(config.controllerCa()));
    }
    this.http = client.build();
  }

  /**
   * Trust for a controller whose HTTPS certificate no public CA signed: the certificates in the PEM file
   * ({@code ROTA_CONTROLLER_CA}), and only they; the host name is checked against the certificate as usual.
   */
  static javax.net.ssl.SSLContext trusting(java.nio.file.Path pem) {
    try (java.io.InputStream in = java.nio.file.Files.newInputStream(pem)) {
      java.security.KeyStore trusted = java.security.KeyStore.getInstance(java.security.KeyStore.getDefaultType());
      trusted.load(null, null);
      int n = 0;
      for (java.security.cert.Certificate c : java.security.cert.CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        trusted.setCertificateEntry("controller-" + n++, c);
      }
      if (n == 0) {
        throw new java.security.GeneralSecurityException("no PEM certificate in it");
      }
      javax.net.ssl.TrustManagerFactory trust =
          javax.net.ssl.TrustManagerFactory.getInstance(javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
      trust.init(trusted);
      javax.net.ssl.SSLContext context = javax.net.ssl.SSLContext.getInstance("TLS");
      context.init(null, trust.getTrustManagers(), null);
      return context;
    } catch (IOException | java.security.GeneralSecurityException e) {
      throw new IllegalStateException("ROTA_CONTROLLER_CA=" + pem + " cannot be used (" + e.getMessage() + ")");
    }
  }

  /** The answer's status; the body is not read. */
  int send(String method, String path, Object body) throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(config.controllerUrl() + path)).timeout(TIMEOUT);
    if (body == null) {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    } else {
      request.header("Content-Type", "application/json")
          .method(method, HttpRequest.BodyPublishers.ofByteArray(json.writeValueAsBytes(body)));
    }
    if (!config.token().isBlank()) {
      request.header("Authorization", "Bearer " + config.token());
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
  }
}
