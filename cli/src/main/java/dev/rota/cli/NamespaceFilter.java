package dev.rota.cli;

import java.util.Collections;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * A list's namespace: the one {@code -n} names, else every one with {@code -A}, else the context's
 * (every one when it names none), as the API's {@code ?namespace=}.
 */
final class NamespaceFilter {
  @Option(
      names = {"-n", "--namespace"},
      paramLabel = "NAMESPACE",
      description = "only those of this namespace (default: the context's)")
  String namespace;

  @Option(
      names = {"-A", "--all-namespaces"},
      description = "those of every namespace, whatever the context's")
  boolean all;

  /** The namespace listed, or null for every one. */
  String namespace(Context context) {
    if (all && namespace != null) {
      throw new CliException(ExitCodes.USAGE, "-n and -A: name one namespace or every one");
    }
    return all ? null : namespace != null ? namespace : context.namespace();
  }

  /** The list's query: the namespace, or nothing for every one. */
  Map<String, String> query(Context context) {
    return Collections.singletonMap("namespace", namespace(context));
  }
}
