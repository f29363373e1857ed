package dev.rota.agent.images;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

/**
 * VM images pulled from OCI registries ({@code oci://registry/repository:tag} or {@code
 * ...@sha256:<manifest digest>}), as a container runtime pulls: the manifest (an index is resolved
 * to its {@code linux/amd64} entry), then the disk, every byte checked against the digest the
 * manifest gives. The disk is the image's layer that is not a file-system tar (an artifact pushed
 * with {@code oras push reg/vm:1 disk.qcow2}: a layer titled {@code *.qcow2}, {@code *.img} or
 * {@code *.raw}, or of a media type that is no tar; the largest if several), or else the file under
 * {@code disk/} in its tar layers (KubeVirt's containerDisk images). A registry that asks for
 * credentials gets them from the agent's registry settings (Docker's {@code config.json} form),
 * through its token service ({@code WWW-Authenticate: Bearer}) or basic auth; they are never
 * logged. Registries on loopback, and those named insecure, are spoken to over plain HTTP.
 */
public final class OciRegistry {
  private static final Pattern REFERENCE = dev.rota.agentapi.OciReference.PATTERN;

  private static final String ACCEPT =
      String.join(
          ", ",
          "application/vnd.oci.image.manifest.v1+json",
          "application/vnd.oci.image.index.v1+json",
          "application/vnd.docker.distribution.manifest.v2+json",
          "application/vnd.docker.distribution.manifest.list.v2+json");

  /** A reference to an image in a registry. */
  record Reference(String registry, String repository, String tag, String digest) {
    static Reference parse(String image) throws ImageCache.ImageException {
      Matcher m = REFERENCE.matcher(image);
      if (!m.matches()) {
        throw new ImageCache.ImageException(
            "image " + image + " is not an OCI reference: " + dev.rota.agentapi.OciReference.FORM);
      }
      return new Reference(
          m.group(1),
          m.group(2),
          m.group(3) == null && m.group(4) == null ? "latest" : m.group(3),
          m.group(4));
    }

    /** What the manifest is asked by: its digest when pinned, else its tag. */
    String manifest() {
      return digest != null ? digest : tag;
    }
  }

  /** Where the disk's bytes go; returns the SHA-256 of what it wrote. */
  interface Sink {
    String copy(InputStream in, long size) throws IOException;
  }

  private final ObjectMapper json;
  private final Map<String, String> credentials;
  private final Set<String> insecure;
  private final HttpClientOnDemand http;

  /** Bearer tokens by registry and repository, as the registries' token services gave them. */
  private final Map<String, String> tokens = new ConcurrentHashMap<>();

  /**
   * @param credentials {@code user:password} by registry ({@code host[:port]})
   * @param insecure registries spoken to over plain HTTP, besides those on loopback
   */
  public OciRegistry(ObjectMapper json, Map<String, String> credentials, Set<String> insecure) {
    this.json = json;
    this.credentials = Map.copyOf(credentials);
    this.insecure = Set.copyOf(insecure);
    // Redirects followed by hand: a blob's redirect to storage elsewhere must not carry the token.
    this.http = new HttpClientOnDemand(HttpClient.Redirect.NEVER);
  }

  /**
   * The registries' credentials in Docker's {@code config.json} form ({@code {"auths": {"host":
   * {"auth": base64(user:password)}}}}, or {@code username} and {@code password}).
   */
  public static Map<String, String> credentials(ObjectMapper json, Path file) throws IOException {
    Map<String, String> found = new java.util.TreeMap<>();
    if (file == null) {
      return found;
    }
    JsonNode auths = json.readTree(file.toFile()).path("auths");
    for (var it = auths.fields(); it.hasNext(); ) {
      var e = it.next();
      String host = e.getKey().replaceFirst("^https?://", "").replaceFirst("/.*$", "");
      JsonNode a = e.getValue();
      if (a.hasNonNull("auth")) {
        found.put(
            host,
            new String(Base64.getDecoder().decode(a.get("auth").asText()), StandardCharsets.UTF_8));
      } else if (a.hasNonNull("username")) {
        found.put(host, a.get("username").asText() + ":" + a.path("password").asText());
      }
    }
    return found;
  }

  /** Where {@link #pull} puts a guest's memory an image holds beside its disk. */
  interface MemorySink {
    /** Copies the memory, saved on a machine of {@code machine}; returns its SHA-256. */
    String copy(InputStream in, long size, String machine) throws IOException;
  }

  /**
   * Pulls the image's disk into {@code sink}, and into {@code memory} the guest's memory it holds,
   * if any (a snapshot of a suspended VM); returns the disk's SHA-256.
   */
  String pull(String image, Sink sink, MemorySink memory)
      throws ImageCache.ImageException, IOException, InterruptedException {
    Reference ref = Reference.parse(image);
    JsonNode manifest = manifest(ref, ref.manifest(), ref.digest());
    if (manifest.has("manifests")) {
      manifest = manifest(ref, platform(ref, manifest), null);
    }
    List<JsonNode> layers = new ArrayList<>();
    manifest.path("layers").forEach(layers::add);
    if (layers.isEmpty()) {
      throw new ImageCache.ImageException("image " + image + " has no layers");
    }
    for (JsonNode layer : layers) {
      if (MEMORY_MEDIA_TYPE.equals(layer.path("mediaType").asText())) {
        String digest = layer.path("digest").asText();
        try (InputStream in = blob(ref, digest)) {
          String sha =
              memory.copy(
                  in,
                  layer.path("size").asLong(-1),
                  layer.path("annotations").path(MACHINE_ANNOTATION).asText(""));
          if (!digest.equals("sha256:" + sha)) {
            throw new ImageCache.ImageException(
                "image " + image + ": its memory has content sha256:" + sha + ", not " + digest);
          }
        }
      }
    }
    List<JsonNode> disks =
        layers.stream()
            .filter(l -> !isTar(l) && !MEMORY_MEDIA_TYPE.equals(l.path("mediaType").asText()))
            .toList();
    if (!disks.isEmpty()) {
      JsonNode disk =
          disks.stream()
              .max(java.util.Comparator.comparingLong(l -> l.path("size").asLong()))
              .orElseThrow();
      String digest = disk.path("digest").asText();
      try (InputStream in = blob(ref, digest)) {
        String sha = sink.copy(in, disk.path("size").asLong(-1));
        if (!digest.equals("sha256:" + sha)) {
          throw new ImageCache.ImageException(
              "image " + image + ": its disk has content sha256:" + sha + ", not " + digest);
        }
        return sha;
      }
    }
    // A containerDisk: the file under disk/ in the topmost layer that has one.
    for (int i = layers.size() - 1; i >= 0; i--) {
      JsonNode layer = layers.get(i);
      String digest = layer.path("digest").asText();
      MessageDigest check = sha256();
      try (DigestInputStream raw = new DigestInputStream(blob(ref, digest), check)) {
        InputStream tar =
            layer.path("mediaType").asText().contains("gzip") ? new GZIPInputStream(raw) : raw;
        TarEntries.Entry entry =
            TarEntries.find(tar, name -> name.startsWith("disk/") && name.length() > 5);
        String sha = entry == null ? null : sink.copy(entry.body(), entry.size());
        raw.transferTo(java.io.OutputStream.nullOutputStream()); // the rest, to check the layer
        if (!digest.equals("sha256:" + HexFormat.of().formatHex(check.digest()))) {
          throw new ImageCache.ImageException(
              "image " + image + ": a layer's content does not match its digest " + digest);
        }
        if (sha != null) {
          return sha;
        }
      }
    }
    throw new ImageCache.ImageException(
        "image "
            + image
            + " holds no disk: no layer is a disk, and no layer has a file under disk/");
  }

  /** The media type of a disk Rota pushes: no tar, so that {@link #pull} takes it as the disk. */
  static final String DISK_MEDIA_TYPE = "application/vnd.rota.disk.v1+qcow2";

  /**
   * The media type of a suspended guest's memory pushed with its disk (QEMU's migration stream).
   */
  static final String MEMORY_MEDIA_TYPE = "application/vnd.rota.memory.v1";

  /** The annotation of a memory layer that names the machine the memory needs. */
  static final String MACHINE_ANNOTATION = "dev.rota.machine";

  /**
   * Pushes {@code disk} (whose content has SHA-256 {@code sha256}) as {@code image} (a reference
   * with a tag), an artifact of one layer titled {@code title} and an empty config, as {@code oras
   * push} would: what {@link #pull} takes back on any worker. With {@code memory} (else null), the
   * guest's memory in {@code memoryFile} goes with it as a second layer that names its machine.
   * Blobs the registry holds already are not sent again.
   *
   * @return the manifest's digest, which pins the image ({@code image@sha256:...})
   */
  public String push(
      String image,
      Path disk,
      String sha256,
      String title,
      Path memoryFile,
      ImageCache.Memory memory)
      throws ImageCache.ImageException, IOException, InterruptedException {
    Reference ref = Reference.parse(image);
    if (ref.digest() != null) {
      throw new ImageCache.ImageException(
          "image " + image + " names a digest: a snapshot is pushed to a tag");
    }
    byte[] config = "{}".getBytes(StandardCharsets.UTF_8);
    String configDigest = digest(config);
    upload(ref, configDigest, () -> HttpRequest.BodyPublishers.ofByteArray(config));
    String diskDigest = "sha256:" + sha256;
    upload(ref, diskDigest, disk);
    List<Map<String, Object>> layers = new ArrayList<>();
    layers.add(
        Map.of(
            "mediaType",
            DISK_MEDIA_TYPE,
            "digest",
            diskDigest,
            "size",
            java.nio.file.Files.size(disk),
            "annotations",
            Map.of("org.opencontainers.image.title", title)));
    if (memory != null) {
      upload(ref, "sha256:" + memory.sha256(), memoryFile);
      layers.add(
          Map.of(
              "mediaType",
              MEMORY_MEDIA_TYPE,
              "digest",
              "sha256:" + memory.sha256(),
              "size",
              memory.size(),
              "annotations",
              Map.of(
                  "org.opencontainers.image.title",
                  "memory.state",
                  MACHINE_ANNOTATION,
                  memory.machine())));
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
                    configDigest,
                    "size",
                    config.length),
                "layers",
                layers));
    HttpResponse<String> put =
        send(
            ref,
            new Call(
                "PUT",
                "/manifests/" + ref.tag(),
                null,
                "application/vnd.oci.image.manifest.v1+json",
                () -> HttpRequest.BodyPublishers.ofByteArray(manifest)),
            HttpResponse.BodyHandlers.ofString(),
            PUSH);
    if (put.statusCode() != 201) {
      throw new ImageCache.ImageException(
          "registry "
              + ref.registry()
              + " refused the manifest of "
              + image
              + " (HTTP "
              + put.statusCode()
              + ")");
    }
    return digest(manifest);
  }

  /** Uploads one file as a blob in one request, unless the repository has it already. */
  private void upload(Reference ref, String digest, Path file)
      throws ImageCache.ImageException, IOException, InterruptedException {
    upload(
        ref,
        digest,
        () -> {
          try {
            return HttpRequest.BodyPublishers.ofFile(file);
          } catch (java.io.FileNotFoundException e) {
            throw new java.io.UncheckedIOException(e);
          }
        });
  }

  /** Uploads one blob in one request, unless the repository has it already. */
  private void upload(
      Reference ref, String digest, java.util.function.Supplier<HttpRequest.BodyPublisher> body)
      throws ImageCache.ImageException, IOException, InterruptedException {
    HttpResponse<Void> held =
        send(
            ref,
            new Call("HEAD", "/blobs/" + digest, null, null, null),
            HttpResponse.BodyHandlers.discarding(),
            PUSH);
    if (held.statusCode() == 200) {
      return;
    }
    HttpResponse<Void> started =
        send(
            ref,
            new Call("POST", "/blobs/uploads/", null, null, null),
            HttpResponse.BodyHandlers.discarding(),
            PUSH);
    String location = started.headers().firstValue("Location").orElse(null);
    if (started.statusCode() != 202 || location == null) {
      throw new ImageCache.ImageException(
          "registry "
              + ref.registry()
              + " did not start an upload to "
              + ref.repository()
              + " (HTTP "
              + started.statusCode()
              + ")");
    }
    URI to =
        started
            .request()
            .uri()
            .resolve(location + (location.contains("?") ? "&" : "?") + "digest=" + digest);
    HttpResponse<Void> put =
        send(
            ref,
            new Call("PUT", to.toString(), null, "application/octet-stream", body),
            HttpResponse.BodyHandlers.discarding(),
            PUSH);
    if (put.statusCode() != 201) {
      throw new ImageCache.ImageException(
          "registry "
              + ref.registry()
              + " refused blob "
              + digest
              + " of "
              + ref.repository()
              + " (HTTP "
              + put.statusCode()
              + ")");
    }
  }

  private static String digest(byte[] bytes) {
    return "sha256:" + HexFormat.of().formatHex(sha256().digest(bytes));
  }

  /**
   * Whether a layer is a file system's tar: by its media type, unless its title names a disk (oras
   * gives a pushed file a tar's media type and the file's name as its title).
   */
  private static boolean isTar(JsonNode layer) {
    String title =
        layer
            .path("annotations")
            .path("org.opencontainers.image.title")
            .asText("")
            .toLowerCase(Locale.ROOT);
    if (title.endsWith(".qcow2") || title.endsWith(".img") || title.endsWith(".raw")) {
      return false;
    }
    return layer.path("mediaType").asText().contains(".tar");
  }

  /** The digest of an index's entry for this worker's platform (or its only entry). */
  private String platform(Reference ref, JsonNode index) throws ImageCache.ImageException {
    String arch = System.getProperty("os.arch").equals("aarch64") ? "arm64" : "amd64";
    List<JsonNode> entries = new ArrayList<>();
    index.path("manifests").forEach(entries::add);
    for (JsonNode m : entries) {
      JsonNode p = m.path("platform");
      if ("linux".equals(p.path("os").asText()) && arch.equals(p.path("architecture").asText())) {
        return m.path("digest").asText();
      }
    }
    if (entries.size() == 1) {
      return entries.get(0).path("digest").asText();
    }
    throw new ImageCache.ImageException(
        "image oci://"
            + ref.registry()
            + "/"
            + ref.repository()
            + " has no linux/"
            + arch
            + " entry");
  }

  /** A manifest, its digest checked when one is expected. */
  private JsonNode manifest(Reference ref, String reference, String expected)
      throws ImageCache.ImageException, IOException, InterruptedException {
    HttpResponse<byte[]> answer =
        send(ref, "/manifests/" + reference, ACCEPT, HttpResponse.BodyHandlers.ofByteArray());
    if (answer.statusCode() == 404) {
      throw new ImageCache.ImageException(
          "image oci://"
              + ref.registry()
              + "/"
              + ref.repository()
              + ":"
              + reference
              + " is not in its registry");
    }
    if (answer.statusCode() != 200) {
      throw new ImageCache.ImageException(
          "registry "
              + ref.registry()
              + " answered HTTP "
              + answer.statusCode()
              + " for a manifest");
    }
    String digest = "sha256:" + HexFormat.of().formatHex(sha256().digest(answer.body()));
    boolean byDigest = reference.startsWith("sha256:");
    if ((expected != null && !expected.equals(digest)) || (byDigest && !reference.equals(digest))) {
      throw new ImageCache.ImageException(
          "image oci://"
              + ref.registry()
              + "/"
              + ref.repository()
              + ": its manifest has digest "
              + digest
              + ", not "
              + (expected != null ? expected : reference));
    }
    return json.readTree(answer.body());
  }

  private InputStream blob(Reference ref, String digest)
      throws ImageCache.ImageException, IOException, InterruptedException {
    HttpResponse<InputStream> answer =
        send(ref, "/blobs/" + digest, "*/*", HttpResponse.BodyHandlers.ofInputStream());
    for (int hops = 0; hops < 5 && isRedirect(answer.statusCode()); hops++) {
      URI to =
          answer
              .request()
              .uri()
              .resolve(
                  answer
                      .headers()
                      .firstValue("Location")
                      .orElseThrow(() -> new IOException("a redirect without a Location")));
      answer.body().close();
      HttpRequest.Builder request = HttpRequest.newBuilder(to).GET();
      if (to.getAuthority().equals(answer.request().uri().getAuthority())) {
        answer
            .request()
            .headers()
            .firstValue("Authorization")
            .ifPresent(a -> request.header("Authorization", a));
      }
      answer = http.get().send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
    }
    if (answer.statusCode() != 200) {
      answer.body().close();
      throw new ImageCache.ImageException(
          "registry "
              + ref.registry()
              + " answered HTTP "
              + answer.statusCode()
              + " for blob "
              + digest);
    }
    return answer.body();
  }

  private static boolean isRedirect(int status) {
    return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
  }

  /**
   * A request to the repository's API, authorised as the registry asks: a token from its token
   * service, or basic auth, with the worker's credentials for it when it has some.
   */
  private <T> HttpResponse<T> send(
      Reference ref, String path, String accept, HttpResponse.BodyHandler<T> body)
      throws ImageCache.ImageException, IOException, InterruptedException {
    return send(ref, new Call("GET", path, accept, null, null), body, PULL);
  }

  /** What is pulled with a pull token; pushing asks for one that may push too. */
  private static final String PULL = "pull";

  private static final String PUSH = "pull,push";

  /**
   * One call to the repository's API: its method, path (or a whole URI, from a Location), and body
   * (made anew for each try; null for none).
   */
  private record Call(
      String method,
      String path,
      String accept,
      String contentType,
      java.util.function.Supplier<HttpRequest.BodyPublisher> body) {
    HttpRequest request(URI uri, String authorization) {
      HttpRequest.Builder b =
          HttpRequest.newBuilder(uri)
              .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : body.get());
      if (accept != null) {
        b.header("Accept", accept);
      }
      if (contentType != null) {
        b.header("Content-Type", contentType);
      }
      if (authorization != null) {
        b.header("Authorization", authorization);
      }
      return b.build();
    }
  }

  private <T> HttpResponse<T> send(
      Reference ref, Call call, HttpResponse.BodyHandler<T> body, String scope)
      throws ImageCache.ImageException, IOException, InterruptedException {
    URI uri =
        call.path().startsWith("http")
            ? URI.create(call.path())
            : URI.create(base(ref.registry()) + "/v2/" + ref.repository() + call.path());
    String key = ref.registry() + "/" + ref.repository() + " " + scope;
    HttpResponse<T> answer = http.get().send(call.request(uri, tokens.get(key)), body);
    if (answer.statusCode() != 401) {
      return answer;
    }
    close(answer);
    String challenge = answer.headers().firstValue("WWW-Authenticate").orElse("");
    String secret = credentials.get(ref.registry());
    String authorization;
    if (challenge.regionMatches(true, 0, "Bearer", 0, 6)) {
      authorization = "Bearer " + token(ref, challenge, secret, scope);
    } else if (secret != null) {
      authorization =
          "Basic " + Base64.getEncoder().encodeToString(secret.getBytes(StandardCharsets.UTF_8));
    } else {
      throw new ImageCache.ImageException(
          "registry " + ref.registry() + " needs credentials, and this worker has none for it");
    }
    tokens.put(key, authorization);
    answer = http.get().send(call.request(uri, authorization), body);
    if (answer.statusCode() == 401 || answer.statusCode() == 403) {
      close(answer);
      tokens.remove(key);
      throw new ImageCache.ImageException(
          "registry "
              + ref.registry()
              + " refused "
              + (secret == null ? "an anonymous " + verb(scope) : "this worker's credentials")
              + " of "
              + ref.repository()
              + " (HTTP "
              + answer.statusCode()
              + ")");
    }
    return answer;
  }

  private static String verb(String scope) {
    return scope.equals(PULL) ? "pull" : "push";
  }

  /** A token from the registry's token service, for the challenge's realm and service. */
  private String token(Reference ref, String challenge, String secret, String scope)
      throws ImageCache.ImageException, IOException, InterruptedException {
    Map<String, String> params = new java.util.HashMap<>();
    Matcher m = Pattern.compile("(\\w+)=\"([^\"]*)\"").matcher(challenge);
    while (m.find()) {
      params.put(m.group(1).toLowerCase(Locale.ROOT), m.group(2));
    }
    String realm = params.get("realm");
    if (realm == null) {
      throw new ImageCache.ImageException(
          "registry " + ref.registry() + " asked for a token without saying where to get one");
    }
    StringBuilder url = new StringBuilder(realm).append(realm.contains("?") ? '&' : '?');
    if (params.containsKey("service")) {
      url.append("service=")
          .append(URLEncoder.encode(params.get("service"), StandardCharsets.UTF_8))
          .append('&');
    }
    url.append("scope=")
        .append(
            URLEncoder.encode(
                "repository:" + ref.repository() + ":" + scope, StandardCharsets.UTF_8));
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url.toString())).GET();
    if (secret != null) {
      request.header(
          "Authorization",
          "Basic " + Base64.getEncoder().encodeToString(secret.getBytes(StandardCharsets.UTF_8)));
    }
    HttpResponse<byte[]> answer =
        http.get().send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    if (answer.statusCode() != 200) {
      throw new ImageCache.ImageException(
          "the token service of registry "
              + ref.registry()
              + " refused "
              + (secret == null ? "an anonymous " + verb(scope) : "this worker's credentials")
              + " (HTTP "
              + answer.statusCode()
              + ")");
    }
    JsonNode body = json.readTree(answer.body());
    String token =
        body.hasNonNull("token")
            ? body.get("token").asText()
            : body.path("access_token").asText(null);
    if (token == null) {
      throw new ImageCache.ImageException(
          "the token service of registry " + ref.registry() + " gave no token");
    }
    return token;
  }

  private String base(String registry) {
    String host = registry.split(":")[0];
    boolean loopback = host.equals("localhost") || host.startsWith("127.");
    return (loopback || insecure.contains(registry) ? "http://" : "https://") + registry;
  }

  private static void close(HttpResponse<?> answer) throws IOException {
    if (answer.body() instanceof InputStream in) {
      in.close();
    }
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
