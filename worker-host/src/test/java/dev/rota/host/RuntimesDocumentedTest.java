package dev.rota.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every place in the docs that lists the runtimes an agent can offer lists each one the agent's
 * code knows: a runtime added to the agent and left out of a list is a doc gone stale.
 */
class RuntimesDocumentedTest {
  private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

  /** The runtimes the agent builds, read from the one switch that builds them. */
  private static Set<String> offered() throws IOException {
    String agent = Files.readString(ROOT.resolve("agent/src/main/java/dev/rota/agent/Agent.java"));
    Matcher m = Pattern.compile("case \"(\\w+)\" ->").matcher(agent);
    Set<String> runtimes = new TreeSet<>();
    while (m.find()) {
      runtimes.add(m.group(1));
    }
    return runtimes;
  }

  @Test
  void theAgentOffersTheRuntimesTheDocsDescribe() throws IOException {
    assertEquals(Set.of("process", "qemu", "synthetic"), offered());
  }

  /** A doc, and a text that begins each line there listing the runtimes. */
  @ParameterizedTest
  @CsvSource({
    "docs/agent.md, `ROTA_WORKER_RUNTIMES`",
    "docs/configuration.md, | `ROTA_DEV_AGENT_RUNTIMES`",
    "docs/api.md, - **Dev mode's agents** offer",
    "docs/runtimes.md, | | `",
  })
  void everyListOfRuntimesNamesThemAll(String doc, String marker) throws IOException {
    List<String> lists =
        Files.readAllLines(ROOT.resolve(doc)).stream()
            .filter(l -> l.contains(marker))
            .map(l -> l.substring(l.indexOf(marker)))
            .toList();
    assertTrue(!lists.isEmpty(), doc + " no longer has a line with " + marker);
    for (String list : lists) {
      for (String runtime : offered()) {
        assertTrue(
            list.contains("`" + runtime + "`"), doc + " leaves out " + runtime + ": " + list);
      }
    }
  }
}
