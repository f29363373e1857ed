package dev.rota.agent.tasks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Finds a process by a variable in its environment, from {@code /proc/<pid>/environ} (Linux;
 * elsewhere nothing is found). Children inherit the environment, so of the processes that carry it,
 * the one whose parent does not is the one the agent started.
 */
public final class TaggedProcesses {
  private static final Path PROC = Path.of("/proc");

  private TaggedProcesses() {}

  /**
   * The folders of the tasks whose processes run on this machine, whichever agent started them (one
   * that ran in another data folder, or stopped): each task's own process, not its children.
   */
  public static List<Path> runningTaskFolders() {
    java.util.Map<Long, String> tagged = values(Supervisor.TASK_DIR_VARIABLE);
    return tagged.entrySet().stream()
        .filter(
            e ->
                ProcessHandle.of(e.getKey())
                    .flatMap(ProcessHandle::parent)
                    .map(parent -> !tagged.containsKey(parent.pid()))
                    .orElse(true))
        .map(e -> Path.of(e.getValue()))
        .distinct()
        .sorted()
        .toList();
  }

  /** Every process whose environment holds {@code variable}, with its value, by pid. */
  static java.util.Map<Long, String> values(String variable) {
    byte[] prefix = (variable + "=").getBytes(StandardCharsets.UTF_8);
    java.util.Map<Long, String> found = new java.util.HashMap<>();
    if (!Files.isDirectory(PROC)) {
      return found;
    }
    try (Stream<Path> all = Files.list(PROC)) {
      for (Path dir : all.toList()) {
        String name = dir.getFileName().toString();
        if (name.isEmpty() || !name.chars().allMatch(Character::isDigit)) {
          continue;
        }
        try {
          valueOf(Files.readAllBytes(dir.resolve("environ")), prefix)
              .ifPresent(v -> found.put(Long.parseLong(name), v));
        } catch (IOException | SecurityException gone) {
          // ended meanwhile, or another user's
        }
      }
    } catch (IOException e) {
      return found;
    }
    return found;
  }

  /** The value of the NUL-separated environment's entry that begins with {@code prefix}. */
  private static Optional<String> valueOf(byte[] environ, byte[] prefix) {
    int start = 0;
    for (int i = 0; i <= environ.length; i++) {
      if (i == environ.length || environ[i] == 0) {
        if (i - start >= prefix.length
            && Arrays.equals(environ, start, start + prefix.length, prefix, 0, prefix.length)) {
          return Optional.of(
              new String(
                  environ,
                  start + prefix.length,
                  i - start - prefix.length,
                  StandardCharsets.UTF_8));
        }
        start = i + 1;
      }
    }
    return Optional.empty();
  }

  static Optional<ProcessHandle> find(String variable, String value) {
    java.util.Map<Long, String> tagged = values(variable);
    tagged.values().removeIf(v -> !v.equals(value));
    return tagged.keySet().stream()
        .map(ProcessHandle::of)
        .flatMap(Optional::stream)
        .filter(p -> p.parent().map(parent -> !tagged.containsKey(parent.pid())).orElse(true))
        .findFirst();
  }
}
