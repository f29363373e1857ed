package dev.rota.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The API's doors, read from its sources: every change to the cluster goes through {@code
 * control}'s commands, which keep the cluster's rules (conditional writes, submissions, workflows
 * started); the API reads the cluster's rows for its views and writes only the tables that are its
 * own (service accounts, access tokens, secrets). Scheduler, agent and Temporal are not the API's
 * to call.
 */
class ApiDoorsTest {
  private static final Path SOURCES = Path.of("src/main/java");

  /** The store's repositories of the cluster's state: written by control and the scheduler. */
  private static final List<String> CLUSTER_TABLES =
      List.of(
          "VmRepository",
          "VmSetRepository",
          "WorkerRepository",
          "AgentTaskRepository",
          "VmEventRepository",
          "ChangeRepository",
          "ClusterStatusRepository",
          "VolumeRepository");

  private static final Pattern FORBIDDEN_IMPORT =
      Pattern.compile(
          "^import (?:static )?(io\\.temporal|dev\\.rota\\.scheduler|dev\\.rota\\.agent)\\.",
          Pattern.MULTILINE);

  private static final Pattern WRITE =
      Pattern.compile(
          "\\.(save|insert|update|delete|claim|mark|bump|set|put|remove|append)\\w*\\(");

  private static List<Path> sources() throws IOException {
    try (Stream<Path> files = Files.walk(SOURCES)) {
      return files.filter(f -> f.toString().endsWith(".java")).sorted().toList();
    }
  }

  @Test
  void theApiCallsNeitherTheSchedulerNorTheAgentsNorTemporal() throws IOException {
    List<String> found = new ArrayList<>();
    for (Path file : sources()) {
      Matcher m = FORBIDDEN_IMPORT.matcher(Files.readString(file));
      while (m.find()) {
        found.add(SOURCES.relativize(file) + ": " + m.group().strip());
      }
    }
    assertEquals(List.of(), found, "reach them through control");
  }

  @Test
  void theApiWritesNoClusterTableItself() throws IOException {
    List<String> found = new ArrayList<>();
    for (Path file : sources()) {
      writesIn(Files.readString(file)).forEach(w -> found.add(SOURCES.relativize(file) + ": " + w));
    }
    assertEquals(List.of(), found, "changes to the cluster go through control's commands");
  }

  /** The check is not blind: a write through a cluster repository, whatever its field's name. */
  @Test
  void aWriteThroughAClusterRepositoryIsSeen() {
    assertEquals(
        List.of("VmRepository rows.update("),
        writesIn(
            "private final VmRepository rows;\n void f() { rows.update(vm); rows.findById(n); }"));
    assertEquals(
        List.of(), writesIn("private final ServiceAccountRepository accounts; accounts.save(a);"));
  }

  /** The writes {@code source} makes through fields or parameters typed as a cluster repository. */
  private static List<String> writesIn(String source) {
    List<String> found = new ArrayList<>();
    for (String table : CLUSTER_TABLES) {
      Matcher field = Pattern.compile("\\b" + table + "\\s+(\\w+)\\s*[;,)]").matcher(source);
      while (field.find()) {
        Matcher write = Pattern.compile("\\b" + field.group(1) + WRITE.pattern()).matcher(source);
        while (write.find()) {
          found.add(table + " " + write.group());
        }
      }
    }
    return found;
  }
}
