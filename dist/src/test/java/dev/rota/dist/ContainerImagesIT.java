package dev.rota.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The container images as a container runtime meets them, with no engine here: each archive is read
 * as an OCI layout (every digest and size checked, the docker-load manifest beside it), its layers
 * unpacked in order into a root, and its entrypoint run there in a mount and PID namespace of its
 * own, with the image's environment and user. The host's image runs dev mode; an agent from the
 * agent's image joins it over HTTPS and runs a VM (busybox's sleep, inside the image's root). The
 * deadlines bound waiting for processes; they assert nothing about speed.
 */
class ContainerImagesIT {
  private static final Duration PATIENCE = Duration.ofSeconds(120);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @TempDir Path dir;

  @Test
  void theHostsImageRunsDevModeAndAnAgentFromTheAgentsImageRunsAVmForIt() throws Exception {
    Image host = Image.unpack(archive("host"), dir.resolve("host"));
    Image agent = Image.unpack(archive("agent"), dir.resolve("agent"));
    assertEquals("rota:" + version(), host.tag());
    assertEquals("rota-agent:" + version(), agent.tag());
    assertEquals("10001:10001", host.config().path("User").asText(), "the host runs as rota");
    assertTrue(host.config().path("ExposedPorts").has("8080/tcp"), host.config().toString());
    assertTrue(agent.config().path("ExposedPorts").has("9101/tcp"), agent.config().toString());
    String runtimes = agent.config().path("Labels").path("dev.rota.runtimes").asText();
    assertTrue(runtimes.startsWith("process"), "the agent's image offers process: " + runtimes);
    if (runtimes.contains("qemu")) {
      for (String tool : List.of("qemu-system-x86_64", "qemu-img")) {
        Result version = agent.run(List.of(tool, "--version"), Map.of(), dir.resolve(tool));
        assertEquals(0, version.code(), tool + " finds all its libraries: " + version.output());
      }
      assertTrue(
          Files.isRegularFile(agent.root().resolve("usr/share/seabios/bios-256k.bin")),
          "QEMU's firmware is in the image");
    }

    int api = freePort();
    String server = "http://127.0.0.1:" + api;
    Process dev =
        host.start(
            List.of("dev"),
            Map.of(
                "MICRONAUT_SERVER_PORT", String.valueOf(api),
                "ROTA_TEMPORAL_PORT", String.valueOf(freePort()),
                "ROTA_TEMPORAL_UI_PORT", String.valueOf(freePort()),
                "ROTA_DATA_DIR", "/tmp/data",
                "ROTA_DEV_AGENTS", "0"),
            dir.resolve("host.log"));
    Process worker = null;
    try {
      eventually(
          "the host's dev mode answers",
          dev,
          dir.resolve("host.log"),
          () -> get(server + "/v1/cluster").map(c -> c.path("term").asLong() > 0).orElse(false));
      worker =
          agent.start(
              List.of(),
              Map.of(
                  "ROTA_CONTROLLER_URL", server,
                  "ROTA_WORKER_NAME", "boxed-1",
                  "ROTA_WORKER_LABELS", "from=image",
                  "ROTA_AGENT_LISTEN", "127.0.0.1",
                  "ROTA_AGENT_PORT", String.valueOf(freePort())),
              dir.resolve("agent.log"));
      Process w = worker;
      eventually(
          "the agent from its image is ready",
          w,
          dir.resolve("agent.log"),
          () ->
              get(server + "/v1/workers/boxed-1")
                  .map(n -> n.path("health").asText().equals("ready"))
                  .orElse(false));
      JsonNode registered = get(server + "/v1/workers/boxed-1").orElseThrow();
      assertTrue(registered.path("endpoint").asText().startsWith("https://"), "TLS in the image");
      assertEquals(runtimes, String.join(",", strings(registered.path("runtimes"))));

      HttpResponse<String> created =
          HTTP.send(
              HttpRequest.newBuilder(URI.create(server + "/v1/vms"))
                  .header("content-type", "application/json")
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "{\"name\":\"boxed\",\"command\":[\"sleep\",\"3422\"]}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(201, created.statusCode(), created.body());
      eventually(
          "the VM runs",
          w,
          dir.resolve("agent.log"),
          () ->
              get(server + "/v1/vms/boxed")
                  .map(v -> v.path("status").asText().equals("running"))
                  .orElse(false));
      ProcessHandle sleep =
          ProcessHandle.allProcesses()
              .filter(p -> cmdline(p.pid()).equals("sleep\u00003422\u0000"))
              .findFirst()
              .orElseThrow(() -> new AssertionError("the VM's process runs"));
      assertEquals(
          agent.root().toRealPath(),
          Files.readSymbolicLink(Path.of("/proc/" + sleep.pid() + "/root")),
          "the VM's process runs in the agent's image");
    } finally {
      Image.stop(worker);
      Image.stop(dev);
    }
  }

  /**
   * The process's arguments as it was given them (busybox's applets have no command of their own).
   */
  private static String cmdline(long pid) {
    try {
      return Files.readString(Path.of("/proc/" + pid + "/cmdline"));
    } catch (IOException e) {
      return "";
    }
  }

  private static Path archive(String which) {
    return Path.of(System.getProperty("rota.image." + which));
  }

  private static String version() {
    return System.getProperty("rota.version");
  }

  private static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }

  private static Optional<JsonNode> get(String url) {
    try {
      HttpResponse<String> r =
          HTTP.send(
              HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
              HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200 ? Optional.of(JSON.readTree(r.body())) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  private static void eventually(String what, Process p, Path log, BooleanSupplier done)
      throws Exception {
    Instant deadline = Instant.now().plus(PATIENCE);
    while (!done.getAsBoolean()) {
      assertTrue(p.isAlive(), what + ", but the process ended:\n" + Files.readString(log));
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError(what + ": not within " + PATIENCE + "\n" + Files.readString(log));
      }
      Thread.sleep(250);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  record Result(int code, String output) {}

  /**
   * An image unpacked as a runtime would: its root, its config, and its tag.
   *
   * @param root the layers applied in order
   * @param config the image config's {@code config} object (Env, Entrypoint, User, ...)
   * @param tag the name the docker-load manifest gives it
   */
  record Image(Path root, JsonNode config, String tag) {

    static Image unpack(Path archive, Path into) throws Exception {
      Path layout = Files.createDirectories(into.resolve("layout"));
      Path root = Files.createDirectories(into.resolve("root"));
      run(List.of("tar", "xf", archive.toString(), "-C", layout.toString()));
      assertEquals(
          "1.0.0",
          JSON.readTree(layout.resolve("oci-layout").toFile()).path("imageLayoutVersion").asText());
      JsonNode index = JSON.readTree(layout.resolve("index.json").toFile());
      JsonNode manifest = blob(layout, index.path("manifests").get(0));
      JsonNode config = blob(layout, manifest.path("config"));
      JsonNode docker = JSON.readTree(layout.resolve("manifest.json").toFile()).get(0);
      assertEquals(
          "blobs/sha256/" + hex(manifest.path("config")),
          docker.path("Config").asText(),
          "docker load reads the same config");
      List<String> diffIds = strings(config.path("rootfs").path("diff_ids"));
      JsonNode layers = manifest.path("layers");
      assertEquals(diffIds.size(), layers.size(), "a diff id per layer");
      for (int i = 0; i < layers.size(); i++) {
        JsonNode layer = layers.get(i);
        Path file = layout.resolve("blobs/sha256/" + hex(layer));
        check(file, layer);
        assertEquals("blobs/sha256/" + hex(layer), docker.path("Layers").get(i).asText());
        assertEquals(
            diffIds.get(i),
            "sha256:" + sha256(new java.util.zip.GZIPInputStream(Files.newInputStream(file))),
            "the uncompressed layer is the one the config names");
        run(List.of("tar", "xzf", file.toString(), "-C", root.toString()));
      }
      return new Image(root, config.path("config"), docker.path("RepoTags").get(0).asText());
    }

    /** Runs {@code command} in the image's root and waits for it. */
    Result run(List<String> command, Map<String, String> env, Path log) throws Exception {
      Process p = exec(command, env, log);
      if (!p.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
        stop(p);
        throw new AssertionError(command + " did not end: " + Files.readString(log));
      }
      return new Result(p.exitValue(), Files.readString(log));
    }

    /** Starts the entrypoint with {@code args}, the image's environment and {@code env} over it. */
    Process start(List<String> args, Map<String, String> env, Path log) throws IOException {
      List<String> command = new ArrayList<>(strings(config.path("Entrypoint")));
      command.addAll(args);
      return exec(command, env, log);
    }

    private Process exec(List<String> command, Map<String, String> env, Path log)
        throws IOException {
      boolean root = "root".equals(System.getProperty("user.name"));
      // unshare, sh, mount and chroot are the test's; the image's PATH is for inside. As a
      // container runtime does, the root gets the basic devices (a JVM seeds its randomness from
      // /dev/urandom), and no others (no /dev/kvm unless passed in).
      List<String> line = new ArrayList<>(List.of(which("unshare")));
      if (!root) {
        line.add("--map-root-user");
      }
      line.addAll(
          List.of("--mount", "--pid", "--fork", "--mount-proc=" + this.root.resolve("proc")));
      line.addAll(
          List.of(
              "/bin/sh",
              "-c",
              "set -e; root=$1; shift; for d in null zero full random urandom tty; do"
                  + " : > \"$root/dev/$d\"; mount --bind \"/dev/$d\" \"$root/dev/$d\"; done;"
                  + " exec \"$@\"",
              "sh",
              this.root.toString(),
              which("chroot")));
      String user = config.path("User").asText("");
      if (root && !user.isEmpty()) {
        line.add("--userspec=" + user);
      }
      line.add(this.root.toString());
      line.addAll(command);
      ProcessBuilder builder =
          new ProcessBuilder(line)
              .directory(this.root.toFile())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile());
      builder.environment().clear();
      for (String pair : strings(config.path("Env"))) {
        int eq = pair.indexOf('=');
        builder.environment().put(pair.substring(0, eq), pair.substring(eq + 1));
      }
      builder.environment().putAll(env);
      Process p = builder.start();
      p.getOutputStream().close();
      return p;
    }

    /** Ends what runs in the namespace: its first process gone, the kernel ends the rest. */
    static void stop(Process p) throws InterruptedException {
      if (p == null) {
        return;
      }
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      p.waitFor(30, TimeUnit.SECONDS);
    }

    private static String which(String tool) {
      for (String d : List.of("/usr/bin", "/bin", "/usr/sbin", "/sbin")) {
        if (Files.isExecutable(Path.of(d, tool))) {
          return d + "/" + tool;
        }
      }
      return tool;
    }

    private static JsonNode blob(Path layout, JsonNode descriptor) throws Exception {
      Path file = layout.resolve("blobs/sha256/" + hex(descriptor));
      check(file, descriptor);
      return JSON.readTree(file.toFile());
    }

    private static void check(Path file, JsonNode descriptor) throws Exception {
      assertEquals(descriptor.path("size").asLong(), Files.size(file), file + "'s size");
      assertEquals(
          descriptor.path("digest").asText(),
          "sha256:" + sha256(Files.newInputStream(file)),
          file + "'s digest");
    }

    private static String hex(JsonNode descriptor) {
      return descriptor.path("digest").asText().substring("sha256:".length());
    }

    private static String sha256(InputStream in) throws Exception {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      try (DigestInputStream d = new DigestInputStream(in, sha)) {
        d.transferTo(java.io.OutputStream.nullOutputStream());
      }
      return HexFormat.of().formatHex(sha.digest());
    }

    private static void run(List<String> command) throws Exception {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes());
      assertEquals(0, p.waitFor(), command + ": " + out);
    }
  }
}
