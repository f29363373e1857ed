package dev.rota.agent.machine;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Finding a program as a shell would: a name with a slash as it is (against a folder), else on a
 * PATH.
 */
public final class Executables {
  private Executables() {}

  /**
   * {@code name} on {@code path} (colon-separated folders), or under {@code dir} when it names a
   * path itself.
   */
  public static Optional<Path> find(String name, String path, Path dir) {
    if (name.contains("/")) {
      Path p = dir.resolve(name);
      return Files.isExecutable(p) ? Optional.of(p) : Optional.empty();
    }
    for (String folder : path.split(File.pathSeparator)) {
      Path candidate = Path.of(folder.isEmpty() ? "." : folder, name);
      if (!folder.isEmpty() && Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }
}
