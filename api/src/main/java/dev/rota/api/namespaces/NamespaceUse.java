package dev.rota.api.namespaces;

import dev.rota.api.problem.Problems;
import dev.rota.store.NamespaceRepository;
import jakarta.inject.Singleton;

/** Whether what a request puts in a namespace may go there: the namespace exists. */
@Singleton
public class NamespaceUse {
  private final NamespaceRepository namespaces;

  public NamespaceUse(NamespaceRepository namespaces) {
    this.namespaces = namespaces;
  }

  /** A list's {@code namespace} filter as given (null: none); a 400 unless a namespace's name. */
  public static String filter(String namespace) {
    if (namespace != null && !namespace.matches(dev.rota.api.Names.DNS_LABEL)) {
      throw Problems.badRequest("namespace", "must be the name of a namespace");
    }
    return namespace;
  }

  /** A 400 naming {@code field} unless {@code namespace} exists. */
  public void check(String namespace, String field) {
    if (!namespaces.existsById(namespace)) {
      throw Problems.badRequest(
          field,
          "no namespace named " + namespace + " (PUT /v1/namespaces/" + namespace + " makes it)");
    }
  }
}
