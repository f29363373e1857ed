package dev.rota.host.temporal;

import dev.rota.host.StartupException;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;

/** Finds the Temporal CLI: the configured path, else {@code temporal} on the PATH. */
final class TemporalCli {
  private TemporalCli() {}

  static Optional<Path> find(String configured, String searchPath) {
    if (configured != null && !configured.isBlank()) {
      Path path = Path.of(configured.strip());
      if (!Files.isRegularFile(path) || !Files.isExecutable(path)) {
        throw new StartupException(
            "ROTA_TEMPORAL_CLI=" + configured + " is not an executable file");
      }
      return Optional.of(path.toAbsolutePath());
    }
    if (searchPath == null) {
      return Optional.empty();
    }
    return Arrays.stream(searchPath.split(File.pathSeparator))
        .filter(dir -> !dir.isBlank())
        .map(dir -> Path.of(dir, "temporal"))
        .filter(p -> Files.isRegularFile(p) && Files.isExecutable(p))
        .findFirst();
  }
}
