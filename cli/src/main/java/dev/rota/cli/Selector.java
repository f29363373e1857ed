package dev.rota.cli;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code -l zone=a,disk=ssd}: kubectl's equality selector on labels, every pair required, which the
 * server applies ({@code labelSelector}). A VM's labels are those its worker must carry; a
 * worker's, those it carries.
 */
record Selector(Map<String, String> pairs) {
  static final Selector ANY = new Selector(Map.of());

  static Selector parse(List<String> given) {
    Map<String, String> pairs = new LinkedHashMap<>();
    for (String part : given == null ? List.<String>of() : given) {
      for (String pair : part.split(",")) {
        int eq = pair.indexOf('=');
        if (eq <= 0) {
          throw new CliException(
              ExitCodes.USAGE, "-l takes KEY=VALUE pairs, such as -l zone=a,disk=ssd; got " + pair);
        }
        pairs.put(pair.substring(0, eq).strip(), pair.substring(eq + 1).strip());
      }
    }
    return new Selector(pairs);
  }

  boolean isAny() {
    return pairs.isEmpty();
  }

  /** As the API's {@code labelSelector} takes it. */
  String asQuery() {
    return pairs.entrySet().stream()
        .map(p -> p.getKey() + "=" + p.getValue())
        .collect(java.util.stream.Collectors.joining(","));
  }
}
