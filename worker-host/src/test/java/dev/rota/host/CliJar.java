package dev.rota.host;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** {@code rota-cli.jar}, the jar {@code mvn verify} built, as an operator runs it. */
final class CliJar {
  private CliJar() {}

  /**
   * {@code rota-cli.jar ARGS}, not started, talking to {@code server} with its settings in {@code
   * config}; {@code token} null for none.
   */
  static ProcessBuilder command(String server, String token, Path config, String... args) {
    String jar = System.getProperty("rota.cli.jar");
    if (jar == null || !Files.exists(Path.of(jar))) {
      throw new IllegalStateException("no jar at " + jar + "; run these tests with 'mvn verify'");
    }
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(JarProcess.SHORT_LIVED);
    command.addAll(List.of("-jar", jar));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().put("ROTA_SERVER", server);
    pb.environment().put("ROTA_CONFIG", config.toString());
    if (token == null) {
      pb.environment().remove("ROTA_TOKEN");
    } else {
      pb.environment().put("ROTA_TOKEN", token);
    }
    return pb;
  }
}
