package dev.rota.api.document;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every body the API reads with its strict reader (unknown fields refused) is closed in the
 * document too: a body left out would be one whose schema lets any field through, which a client or
 * a fuzzer would then send and have refused.
 */
class ClosedBodiesTest {
  private static final Pattern READ =
      Pattern.compile("\\.read\\(\\s*\\w+\\s*,\\s*([A-Za-z_.]+)\\.class");

  @Test
  void everyBodyTheApiReadsIsClosedInTheDocument() throws IOException {
    Set<String> read = new TreeSet<>();
    try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
        Matcher m = READ.matcher(Files.readString(file));
        while (m.find()) {
          String name = m.group(1);
          read.add(name.substring(name.lastIndexOf('.') + 1));
        }
      }
    }
    Set<String> closed = new TreeSet<>();
    ClosedBodies.BODIES.forEach(c -> closed.add(c.getSimpleName()));
    read.removeAll(closed);
    assertEquals(Set.of(), read, "read strictly, yet not in ClosedBodies.BODIES");
  }
}
