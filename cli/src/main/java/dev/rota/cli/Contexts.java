package dev.rota.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The config file's contexts (kubectl's kubeconfig, Nomad's env): named servers with their tokens
 * and the one in use, in {@code $ROTA_CONFIG}, else {@code $XDG_CONFIG_HOME/rota/config.json}, else
 * {@code ~/.config/rota/config.json}. Written readable by its owner alone: it holds tokens.
 *
 * <pre>{"current": "dev", "contexts": {"dev": {"server": "http://127.0.0.1:8080"}}}</pre>
 *
 * <p>A context may name a namespace ({@code "namespace": "team-a"}), as kubectl's does: creates and
 * lists are then in it unless they name another ({@code -n}) or every one ({@code -A}).
 */
final class Contexts {
  static final String DEFAULT_SERVER = "http://127.0.0.1:8080";

  private final Path file;
  private final ObjectMapper json;

  Contexts(Path file, ObjectMapper json) {
    this.file = file;
    this.json = json;
  }

  static Path file(Map<String, String> env) {
    if (env.containsKey("ROTA_CONFIG")) {
      return Path.of(env.get("ROTA_CONFIG"));
    }
    String xdg = env.get("XDG_CONFIG_HOME");
    Path base =
        xdg != null && !xdg.isBlank()
            ? Path.of(xdg)
            : Path.of(env.getOrDefault("HOME", System.getProperty("user.home")), ".config");
    return base.resolve("rota").resolve("config.json");
  }

  Path file() {
    return file;
  }

  /**
   * Where to talk to: a flag wins, then {@code ROTA_SERVER} / {@code ROTA_TOKEN}, then the named
   * context (or the current one), then dev mode's address without a token.
   */
  Context resolve(
      String contextFlag, String serverFlag, String tokenFlag, Map<String, String> env) {
    ObjectNode config = read();
    String name = contextFlag != null ? contextFlag : config.path("current").asText(null);
    JsonNode chosen = name == null ? null : config.path("contexts").get(name);
    if (contextFlag != null && chosen == null) {
      throw new CliException(
          ExitCodes.USAGE,
          "no context named " + contextFlag + " in " + file + "; see rota context list");
    }
    String server =
        first(
            serverFlag,
            env.get("ROTA_SERVER"),
            chosen == null ? null : chosen.path("server").asText(null),
            DEFAULT_SERVER);
    String token =
        first(
            tokenFlag,
            env.get("ROTA_TOKEN"),
            chosen == null ? null : chosen.path("token").asText(null),
            null);
    return new Context(
        name,
        server.replaceAll("/+$", ""),
        token,
        chosen == null ? null : chosen.path("sshKey").asText(null),
        chosen == null ? null : chosen.path("namespace").asText(null));
  }

  List<Context> all() {
    ObjectNode config = read();
    List<Context> contexts = new ArrayList<>();
    config
        .path("contexts")
        .fields()
        .forEachRemaining(
            e ->
                contexts.add(
                    new Context(
                        e.getKey(),
                        e.getValue().path("server").asText(null),
                        e.getValue().path("token").asText(null),
                        e.getValue().path("sshKey").asText(null),
                        e.getValue().path("namespace").asText(null))));
    return contexts;
  }

  String current() {
    return read().path("current").asText(null);
  }

  /** Adds or replaces a context; the first one made becomes the current one. */
  void set(String name, String server, String token, String sshKey, String namespace) {
    ObjectNode config = read();
    ObjectNode contexts =
        config.has("contexts") ? (ObjectNode) config.get("contexts") : config.putObject("contexts");
    ObjectNode context = contexts.putObject(name);
    context.put("server", server);
    if (token != null) {
      context.put("token", token);
    }
    if (sshKey != null) {
      context.put("sshKey", sshKey);
    }
    if (namespace != null) {
      context.put("namespace", namespace);
    }
    if (!config.hasNonNull("current")) {
      config.put("current", name);
    }
    write(config);
  }

  void use(String name) {
    ObjectNode config = read();
    if (!config.path("contexts").has(name)) {
      throw new CliException(
          ExitCodes.NOT_FOUND,
          "no context named " + name + " in " + file + "; see rota context list");
    }
    config.put("current", name);
    write(config);
  }

  void delete(String name) {
    ObjectNode config = read();
    if (!config.path("contexts").has(name)) {
      throw new CliException(ExitCodes.NOT_FOUND, "no context named " + name + " in " + file);
    }
    ((ObjectNode) config.get("contexts")).remove(name);
    if (name.equals(config.path("current").asText(null))) {
      config.remove("current");
    }
    write(config);
  }

  private ObjectNode read() {
    if (!Files.exists(file)) {
      return json.createObjectNode();
    }
    try {
      JsonNode node = json.readTree(file.toFile());
      if (node instanceof ObjectNode o) {
        return o;
      }
    } catch (IOException e) {
      throw new CliException(
          ExitCodes.FAILED,
          "cannot read " + file + " (" + e.getMessage().lines().findFirst().orElse("") + ")");
    }
    throw new CliException(ExitCodes.FAILED, file + " is not a JSON object; fix or remove it");
  }

  /**
   * Whole, to a temporary file moved over the old one: an interrupted write leaves one or the
   * other.
   */
  private void write(ObjectNode config) {
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
      Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
      Files.deleteIfExists(temporary);
      try {
        Files.createFile(
            temporary,
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      } catch (UnsupportedOperationException e) {
        Files.createFile(temporary);
      }
      json.writerWithDefaultPrettyPrinter().writeValue(temporary.toFile(), config);
      Files.move(
          temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new CliException(
          ExitCodes.FAILED, "cannot write " + file + " (" + e.getMessage() + ")");
    }
  }

  private static String first(String... values) {
    for (String v : values) {
      if (v != null && !v.isBlank()) {
        return v;
      }
    }
    return null;
  }
}
