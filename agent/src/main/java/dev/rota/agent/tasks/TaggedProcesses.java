package dev.rota.agent.tasks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Finds a process by a variable in its environment, from {@code /proc/<pid>/environ} (Linux;
 * elsewhere nothing is found). Children inherit the environment, so of the processes that carry it,
 * the one whose parent does not is the one the agent started.
 */
final class TaggedProcesses {
  private static final Path PROC = Path.of("/proc");

  private TaggedProcesses() {}

  static Optional<ProcessHandle> find(String variable, String value) {
    byte[] entry = (variable + "=" + value).getBytes(StandardCharsets.UTF_8);
    List<Long> tagged = new ArrayList<>();
    if (!Files.isDirectory(PROC)) {
      return Optional.empty();
    }
    try (Stream<Path> all = Files.list(PROC)) {
      for (Path dir : all.toList()) {
        String name = dir.getFileName().toString();
        if (name.isEmpty() || !name.chars().allMatch(Character::isDigit)) {
          continue;
        }
        try {
          if (hasEntry(Files.readAllBytes(dir.resolve("environ")), entry)) {
            tagged.add(Long.parseLong(name));
          }
        } catch (IOException | SecurityException gone) {
          // ended meanwhile, or another user's
        }
      }
    } catch (IOException e) {
      return Optional.empty();
    }
    return tagged.stream()
        .map(ProcessHandle::of)
        .flatMap(Optional::stream)
        .filter(p -> p.parent().map(parent -> !tagged.contains(parent.pid())).orElse(true))
        .findFirst();
  }

  /** Whether the NUL-separated environment holds exactly this entry. */
  static boolean hasEntry(byte[] environ, byte[] entry) {
    int start = 0;
    for (int i = 0; i <= environ.length; i++) {
      if (i == environ.length || environ[i] == 0) {
        if (i - start == entry.length && Arrays.equals(environ, start, i, entry, 0, entry.length)) {
          return true;
        }
        start = i + 1;
      }
    }
    return false;
  }
}
