package dev.rota.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * Every setting the code reads is in the docs, under the name a user sets, and every setting the
 * docs name is read: the host's in docs/configuration.md, the agent's in docs/agent.md, the CLI's
 * in docs/cli.md. The code's settings are read from its sources: the records of
 * {@code @ConfigurationProperties} (a component {@code lostAfter} of {@code rota.workers} is {@code
 * ROTA_WORKERS_LOST_AFTER}), the properties it asks for by name, the variables it reads itself, and
 * the variables {@code application.yml} maps onto properties (which then go by that name).
 */
class SettingsDocumentedTest {
  private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
  private static final Pattern CONFIGURATION_PROPERTIES =
      Pattern.compile("@ConfigurationProperties\\(\"([a-z.-]+)\"\\)\\s*public record \\w+\\(");
  private static final Pattern PROPERTY_BY_NAME =
      Pattern.compile("getProperty\\(\\s*\"(rota\\.[a-z.-]+)\"|\\$\\{(rota\\.[a-z.-]+)");
  private static final Pattern VARIABLE =
      Pattern.compile("\"((?:ROTA|TEMPORAL|DATASOURCES)_[A-Z0-9_]*[A-Z0-9])\"");
  private static final Pattern DOCUMENTED =
      Pattern.compile("`\\$?((?:ROTA|TEMPORAL|DATASOURCES|MICRONAUT)_[A-Z0-9_]+|…_[A-Z0-9_]+)`");
  private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([A-Z][A-Z0-9_]+)");

  @Test
  void theHostsSettingsAreThoseOfDocsConfiguration() {
    Set<String> read = hostSettings();
    // Micronaut's own, which the host reads through the framework.
    Set<String> framework =
        Set.of(
            "MICRONAUT_SERVER_PORT",
            "DATASOURCES_DEFAULT_USERNAME",
            "DATASOURCES_DEFAULT_PASSWORD");
    assertDocumentedExactly("docs/configuration.md", read, read, framework);
  }

  @Test
  void theAgentsSettingsAreThoseOfDocsAgent() {
    assertDocumentedExactly(
        "docs/agent.md", variables(ROOT.resolve("agent/src/main/java")), everySetting(), Set.of());
  }

  @Test
  void theClisSettingsAreThoseOfDocsCli() {
    assertDocumentedExactly(
        "docs/cli.md", variables(ROOT.resolve("cli/src/main/java")), everySetting(), Set.of());
  }

  private static Set<String> hostSettings() {
    Map<String, String> mapped =
        variablesOfProperties(ROOT.resolve("worker-host/src/main/resources"));
    Set<String> read = new TreeSet<>(mapped.values());
    for (String module : List.of("store", "scheduler", "control", "api", "worker-host")) {
      for (String property : properties(ROOT.resolve(module + "/src/main/java"))) {
        read.add(mapped.getOrDefault(property, variable(property)));
      }
      read.addAll(variables(ROOT.resolve(module + "/src/main/java")));
    }
    // Dev mode's profile sets it: it is how the host knows it runs in dev mode, not a user's
    // setting.
    read.remove("ROTA_TEMPORAL_EMBEDDED");
    return read;
  }

  private static Set<String> everySetting() {
    Set<String> every = hostSettings();
    every.addAll(variables(ROOT.resolve("agent/src/main/java")));
    every.addAll(variables(ROOT.resolve("cli/src/main/java")));
    return every;
  }

  /**
   * {@code doc} names every setting in {@code read}, and none that is not in {@code known}, {@code
   * besides} (the framework's own) apart.
   */
  private static void assertDocumentedExactly(
      String doc, Set<String> read, Set<String> known, Set<String> besides) {
    Set<String> documented = documented(ROOT.resolve(doc));
    Set<String> missing = new TreeSet<>(read);
    missing.removeAll(documented);
    assertEquals(Set.of(), missing, "read by the code, missing from " + doc);
    Set<String> stale = new TreeSet<>(documented);
    stale.removeAll(known);
    stale.removeAll(besides);
    assertEquals(Set.of(), stale, "named by " + doc + ", read by no code");
  }

  /**
   * The variables {@code doc} names in backquotes; {@code …_USERNAME} after {@code
   * DATASOURCES_DEFAULT_URL} is {@code DATASOURCES_DEFAULT_USERNAME}.
   */
  private static Set<String> documented(Path doc) {
    Set<String> names = new TreeSet<>();
    String previous = null;
    Matcher m = DOCUMENTED.matcher(read(doc));
    while (m.find()) {
      String name = m.group(1);
      if (name.startsWith("…_") && previous != null) {
        name = previous.substring(0, previous.lastIndexOf('_')) + name.substring(1);
      } else {
        previous = name;
      }
      names.add(name);
    }
    return names;
  }

  /**
   * The properties the code reads: its settings records' components, and those it asks for by name.
   */
  private static Set<String> properties(Path sources) {
    Set<String> properties = new TreeSet<>();
    for (Path file : javaFiles(sources)) {
      String text = read(file);
      Matcher record = CONFIGURATION_PROPERTIES.matcher(text);
      while (record.find()) {
        for (String component : components(text, record.end())) {
          properties.add(record.group(1) + "." + kebab(component));
        }
      }
      Matcher byName = PROPERTY_BY_NAME.matcher(text);
      while (byName.find()) {
        properties.add(byName.group(1) != null ? byName.group(1) : byName.group(2));
      }
    }
    return properties;
  }

  /** The names of a record's components, from just after its opening parenthesis. */
  private static List<String> components(String text, int from) {
    List<String> names = new ArrayList<>();
    int depth = 0;
    StringBuilder part = new StringBuilder();
    for (int i = from; i < text.length(); i++) {
      char c = text.charAt(i);
      if (depth == 0 && (c == ',' || c == ')')) {
        String[] words = part.toString().trim().split("\\s+");
        names.add(words[words.length - 1]);
        part.setLength(0);
        if (c == ')') {
          return names;
        }
        continue;
      }
      if (c == '(' || c == '<') {
        depth++;
      } else if (c == ')' || c == '>') {
        depth--;
      }
      part.append(c);
    }
    throw new AssertionError("a record's components that never end");
  }

  /**
   * The variables the code reads itself, by their whole names; not those the host hands the dev
   * agents it starts ({@code DevAgents}), which are the agent's.
   */
  private static Set<String> variables(Path sources) {
    Set<String> variables = new TreeSet<>();
    for (Path file : javaFiles(sources)) {
      if (file.endsWith("DevAgents.java")) {
        continue;
      }
      Matcher m = VARIABLE.matcher(read(file));
      while (m.find()) {
        variables.add(m.group(1));
      }
    }
    return variables;
  }

  /** For each property the host's {@code application*.yml} sets from a variable, that variable. */
  private static Map<String, String> variablesOfProperties(Path resources) {
    Map<String, String> mapped = new LinkedHashMap<>();
    try (Stream<Path> files = Files.list(resources)) {
      for (Path yml :
          files.filter(p -> p.getFileName().toString().matches("application.*\\.yml")).toList()) {
        Object tree = new Yaml().load(read(yml));
        flatten(
            "",
            tree,
            (property, value) -> {
              Matcher m = PLACEHOLDER.matcher(value);
              if (m.find()) {
                mapped.put(property, m.group(1));
              }
            });
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return mapped;
  }

  private static void flatten(
      String prefix, Object node, java.util.function.BiConsumer<String, String> leaf) {
    if (node instanceof Map<?, ?> map) {
      map.forEach(
          (k, v) -> flatten(prefix.isEmpty() ? String.valueOf(k) : prefix + "." + k, v, leaf));
    } else if (node != null) {
      leaf.accept(prefix, String.valueOf(node));
    }
  }

  private static String kebab(String camel) {
    return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase();
  }

  /** {@code rota.workers.lost-after} is set as {@code ROTA_WORKERS_LOST_AFTER}. */
  private static String variable(String property) {
    return property.toUpperCase().replace('.', '_').replace('-', '_');
  }

  private static List<Path> javaFiles(Path sources) {
    try (Stream<Path> files = Files.walk(sources)) {
      return files.filter(p -> p.toString().endsWith(".java")).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void aRecordsComponentsAreReadWithTheirAnnotationsAndGenerics() {
    String text =
        "@ConfigurationProperties(\"rota.x\")\npublic record X(\n    @Bindable(defaultValue = \"5s\") Duration lostAfter,\n"
            + "    Map<String, List<String>> byName, @Nullable String token) {}";
    Matcher m = CONFIGURATION_PROPERTIES.matcher(text);
    assertTrue(m.find());
    assertEquals(List.of("lostAfter", "byName", "token"), components(text, m.end()));
    assertEquals("ROTA_X_LOST_AFTER", variable("rota.x." + kebab("lostAfter")));
  }
}
