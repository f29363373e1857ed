package dev.rota.api.document;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/** docs/api.md's reference names every operation of the API's generated document, and no other. */
class ApiReferenceTest {
  private static final Pattern ROW =
      Pattern.compile("^\\| `(GET|POST|PUT|PATCH|DELETE) (/[^`]*)` \\|", Pattern.MULTILINE);

  @Test
  @SuppressWarnings("unchecked")
  void theReferenceAndTheDocumentNameTheSameOperations() throws Exception {
    Map<String, Object> document = new Yaml().load(ApiDocumentController.render());
    Set<String> served = new TreeSet<>();
    ((Map<String, Map<String, Object>>) document.get("paths"))
        .forEach(
            (path, operations) ->
                operations.keySet().forEach(m -> served.add(m.toUpperCase() + " " + path)));
    Set<String> documented = new TreeSet<>();
    Matcher row = ROW.matcher(Files.readString(Path.of("..", "docs", "api.md")));
    while (row.find()) {
      documented.add(row.group(1) + " " + row.group(2));
    }
    assertEquals(served, documented, "docs/api.md's reference against /openapi.yml");
  }
}
