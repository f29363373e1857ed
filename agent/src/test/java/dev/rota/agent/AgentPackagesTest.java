package dev.rota.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The agent's rooms stay rooms: each package of the agent uses others only one way round, and only
 * the top package, which builds the agent, may use them all. Read from the sources, as a newcomer
 * reads them.
 */
class AgentPackagesTest {
  private static final Path SOURCES = Path.of("src/main/java/dev/rota/agent");
  private static final Pattern USE =
      Pattern.compile("\\bdev\\.rota\\.agent((?:\\.[a-z]\\w*)*)\\.[A-Z]");

  /** For each package under the agent's, the packages of the agent its sources name. */
  private static Map<String, Set<String>> uses() throws IOException {
    Map<String, Set<String>> uses = new TreeMap<>();
    try (Stream<Path> files = Files.walk(SOURCES)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
        String from = packageOf(SOURCES.relativize(file.getParent()));
        Set<String> to = uses.computeIfAbsent(from, p -> new TreeSet<>());
        Matcher m = USE.matcher(Files.readString(file));
        while (m.find()) {
          String used = m.group(1).isEmpty() ? "" : m.group(1).substring(1);
          if (!used.equals(from)) {
            to.add(used);
          }
        }
      }
    }
    return uses;
  }

  private static String packageOf(Path relative) {
    return relative.toString().replace('/', '.');
  }

  @Test
  void theAgentHasItsRooms() throws IOException {
    assertEquals(
        Set.of("", "config", "images", "link", "machine", "runtimes", "server", "tasks"),
        uses().keySet());
  }

  @Test
  void noRoomReachesBackToTheOneThatBuildsTheAgent() throws IOException {
    uses()
        .forEach(
            (from, to) ->
                assertTrue(
                    from.isEmpty() || !to.contains(""),
                    "dev.rota.agent." + from + " uses dev.rota.agent itself"));
  }

  @Test
  void noTwoRoomsUseEachOtherRoundACycle() throws IOException {
    Map<String, Set<String>> uses = uses();
    for (String start : uses.keySet()) {
      List<String> path = new ArrayList<>();
      assertTrue(
          !reaches(uses, start, start, path, new TreeSet<>()),
          "a cycle between the agent's packages: " + start + " -> " + String.join(" -> ", path));
    }
  }

  private static boolean reaches(
      Map<String, Set<String>> uses,
      String from,
      String target,
      List<String> path,
      Set<String> seen) {
    for (String next : uses.getOrDefault(from, Set.of())) {
      path.add(next);
      if (next.equals(target) || (seen.add(next) && reaches(uses, next, target, path, seen))) {
        return true;
      }
      path.remove(path.size() - 1);
    }
    return false;
  }

  @Test
  void everyRoomSaysWhatItIsFor() {
    try (Stream<Path> dirs = Files.walk(SOURCES)) {
      dirs.filter(Files::isDirectory)
          .forEach(
              dir ->
                  assertTrue(
                      Files.exists(dir.resolve("package-info.java")),
                      dir + " has no package comment"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
