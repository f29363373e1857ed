package dev.rota.cli;

import java.util.Collections;
import java.util.Map;
import picocli.CommandLine.Option;

/** A list's {@code -n}: only what lives in one namespace, as the API's {@code ?namespace=}. */
final class NamespaceFilter {
  @Option(
      names = {"-n", "--namespace"},
      paramLabel = "NAMESPACE",
      description = "only those of this namespace")
  String namespace;

  /** The list's query: the namespace, or nothing when none was given. */
  Map<String, String> query() {
    return Collections.singletonMap("namespace", namespace);
  }
}
