package dev.rota.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * The reference OCI registry (Debian's {@code docker-registry}, fetched by {@code .ci/registry}) on
 * loopback, behind token auth as Docker Hub's is: its token service, run here, gives a token signed
 * by a key the registry trusts to whoever presents {@link #USER}:{@link #PASSWORD}. The test pushes
 * its images with {@link #push}. Skips the calling test when the registry cannot be had.
 */
public final class LoopbackRegistry implements AutoCloseable {
  public static final String USER = "rota";
  public static final String PASSWORD = "pull-secret";
  static final String SERVICE = "rota-test-registry";
  static final String ISSUER = "rota-test-token-service";

  private final ObjectMapper json = new ObjectMapper();
  private final HttpClient http = HttpClient.newHttpClient();
  private final Process registry;
  private final HttpServer tokens;
  private final PrivateKey key;
  private final X509Certificate certificate;
  public final String address;

  public LoopbackRegistry(Path dir) throws Exception {
    Path binary = binary();
    Path keystore = dir.resolve("token.p12");
    Process keytool =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair",
                "-alias",
                "token",
                "-keyalg",
                "RSA",
                "-keysize",
                "2048",
                "-dname",
                "CN=" + ISSUER,
                "-validity",
                "2",
                "-storetype",
                "PKCS12",
                "-keystore",
                keystore.toString(),
                "-storepass",
                "changeit")
            .redirectErrorStream(true)
            .start();
    keytool.getInputStream().readAllBytes();
    if (keytool.waitFor() != 0) {
      throw new IllegalStateException("keytool could not make the token service's key");
    }
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (var in = Files.newInputStream(keystore)) {
      store.load(in, "changeit".toCharArray());
    }
    key = (PrivateKey) store.getKey("token", "changeit".toCharArray());
    certificate = (X509Certificate) store.getCertificate("token");
    Path bundle =
        Files.writeString(
            dir.resolve("token.pem"),
            "-----BEGIN CERTIFICATE-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes())
                    .encodeToString(certificate.getEncoded())
                + "\n-----END CERTIFICATE-----\n");

    tokens = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
    tokens.createContext(
        "/token",
        x -> {
          String basic =
              "Basic "
                  + Base64.getEncoder()
                      .encodeToString((USER + ":" + PASSWORD).getBytes(StandardCharsets.UTF_8));
          if (!basic.equals(x.getRequestHeaders().getFirst("Authorization"))) {
            x.sendResponseHeaders(401, -1);
            x.close();
            return;
          }
          // scope=repository:<name>:pull (or pull,push), as the registry's challenge asked: the
          // one user may do either
          String query = String.valueOf(x.getRequestURI().getQuery());
          java.util.regex.Matcher scope =
              java.util.regex.Pattern.compile("scope=repository:([^:&]+):([a-z,]+)").matcher(query);
          boolean asked = scope.find();
          byte[] body =
              json.writeValueAsBytes(
                  Map.of(
                      "token",
                      token(asked ? scope.group(1) : "", asked ? scope.group(2) : "pull")));
          x.getResponseHeaders().set("Content-Type", "application/json");
          x.sendResponseHeaders(200, body.length);
          x.getResponseBody().write(body);
          x.close();
        });
    tokens.start();

    int port;
    try (ServerSocket free = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = free.getLocalPort();
    }
    address = "127.0.0.1:" + port;
    Path config =
        Files.writeString(
            dir.resolve("registry.yml"),
            String.join(
                "\n",
                "version: 0.1",
                "log:",
                "  level: warn",
                "storage:",
                "  filesystem:",
                "    rootdirectory: " + dir.resolve("storage"),
                "http:",
                "  addr: " + address,
                "auth:",
                "  token:",
                "    realm: http://127.0.0.1:" + tokens.getAddress().getPort() + "/token",
                "    service: " + SERVICE,
                "    issuer: " + ISSUER,
                "    rootcertbundle: " + bundle,
                ""));
    registry =
        new ProcessBuilder(binary.toString(), "serve", config.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("registry.log").toFile())
            .start();
    Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
    while (true) {
      try {
        int status =
            http.send(
                    HttpRequest.newBuilder(URI.create("http://" + address + "/v2/")).build(),
                    HttpResponse.BodyHandlers.discarding())
                .statusCode();
        if (status == 401) {
          break;
        }
      } catch (IOException e) {
        // not listening yet
      }
      if (Instant.now().isAfter(deadline) || !registry.isAlive()) {
        close();
        throw new IllegalStateException(
            "the registry did not start: " + Files.readString(dir.resolve("registry.log")));
      }
      Thread.sleep(50);
    }
  }

  private static Path binary() {
    return Path.of(CiScript.run(".ci/registry", "install").needed("OCI registry"));
  }

  /** A token for the test's repositories, signed as the registry expects (x5c: our certificate). */
  public String token(String repository, String actions) {
    try {
      long now = Instant.now().getEpochSecond();
      Map<String, Object> header =
          Map.of(
              "typ",
              "JWT",
              "alg",
              "RS256",
              "x5c",
              List.of(Base64.getEncoder().encodeToString(certificate.getEncoded())));
      Map<String, Object> claims =
          Map.of(
              "iss",
              ISSUER,
              "sub",
              USER,
              "aud",
              SERVICE,
              "exp",
              now + 600,
              "nbf",
              now - 60,
              "iat",
              now,
              "jti",
              java.util.UUID.randomUUID().toString(),
              "access",
              List.of(
                  Map.of(
                      "type",
                      "repository",
                      "name",
                      repository,
                      "actions",
                      List.of(actions.split(",")))));
      Base64.Encoder url = Base64.getUrlEncoder().withoutPadding();
      String signed =
          url.encodeToString(json.writeValueAsBytes(header))
              + "."
              + url.encodeToString(json.writeValueAsBytes(claims));
      Signature rsa = Signature.getInstance("SHA256withRSA");
      rsa.initSign(key);
      rsa.update(signed.getBytes(StandardCharsets.US_ASCII));
      return signed + "." + url.encodeToString(rsa.sign());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** One layer of an image to push: its media type and bytes. */
  public record Layer(String mediaType, byte[] bytes) {}

  /**
   * Pushes an image of {@code layers} as {@code repository:tag} (an OCI manifest with an empty
   * config); returns the manifest's digest.
   */
  public String push(String repository, String tag, List<Layer> layers) throws Exception {
    String bearer = "Bearer " + token(repository, "pull,push");
    byte[] config = "{}".getBytes(StandardCharsets.UTF_8);
    upload(repository, config, bearer);
    List<Map<String, Object>> described = new java.util.ArrayList<>();
    for (Layer l : layers) {
      described.add(
          Map.of(
              "mediaType", l.mediaType(), "digest", digest(l.bytes()), "size", l.bytes().length));
      upload(repository, l.bytes(), bearer);
    }
    byte[] manifest =
        json.writeValueAsBytes(
            Map.of(
                "schemaVersion",
                2,
                "mediaType",
                "application/vnd.oci.image.manifest.v1+json",
                "config",
                Map.of(
                    "mediaType",
                    "application/vnd.oci.image.config.v1+json",
                    "digest",
                    digest(config),
                    "size",
                    config.length),
                "layers",
                described));
    HttpResponse<String> put =
        http.send(
            HttpRequest.newBuilder(
                    URI.create("http://" + address + "/v2/" + repository + "/manifests/" + tag))
                .header("Authorization", bearer)
                .header("Content-Type", "application/vnd.oci.image.manifest.v1+json")
                .PUT(HttpRequest.BodyPublishers.ofByteArray(manifest))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (put.statusCode() != 201) {
      throw new IllegalStateException("manifest push: " + put.statusCode() + " " + put.body());
    }
    return digest(manifest);
  }

  private void upload(String repository, byte[] bytes, String bearer) throws Exception {
    HttpResponse<String> start =
        http.send(
            HttpRequest.newBuilder(
                    URI.create("http://" + address + "/v2/" + repository + "/blobs/uploads/"))
                .header("Authorization", bearer)
                .POST(HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (start.statusCode() != 202) {
      throw new IllegalStateException("upload start: " + start.statusCode() + " " + start.body());
    }
    String location = start.headers().firstValue("Location").orElseThrow();
    URI to =
        URI.create("http://" + address + "/")
            .resolve(location + (location.contains("?") ? "&" : "?") + "digest=" + digest(bytes));
    HttpResponse<String> put =
        http.send(
            HttpRequest.newBuilder(to)
                .header("Authorization", bearer)
                .header("Content-Type", "application/octet-stream")
                .PUT(HttpRequest.BodyPublishers.ofByteArray(bytes))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (put.statusCode() != 201) {
      throw new IllegalStateException("upload: " + put.statusCode() + " " + put.body());
    }
  }

  public static String digest(byte[] bytes) throws Exception {
    return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
  }

  /** The credentials file an agent is given, in Docker's config.json form. */
  public Path credentials(Path dir, String password) throws IOException {
    return Files.writeString(
        dir.resolve("registries.json"),
        "{\"auths\":{\""
            + address
            + "\":{\"auth\":\""
            + Base64.getEncoder()
                .encodeToString((USER + ":" + password).getBytes(StandardCharsets.UTF_8))
            + "\"}}}");
  }

  @Override
  public void close() {
    if (registry != null) {
      registry.destroyForcibly();
    }
    tokens.stop(0);
  }
}
