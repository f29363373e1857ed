package dev.rota.api.namespaces;

import dev.rota.api.auth.Caller;
import dev.rota.api.auth.Role;
import dev.rota.api.problem.Problems;
import dev.rota.store.NamespaceRepository;
import jakarta.inject.Singleton;

/**
 * Whether what a request puts in a namespace may go there: its caller holds the role for it there,
 * and the namespace exists.
 */
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

  /**
   * A 403 unless the caller holds one of {@code any} in {@code namespace}, then a 400 naming {@code
   * field} unless it exists.
   */
  public void check(String namespace, String field, Role... any) {
    Caller.current().require(namespace, any);
    exists(namespace, field);
  }

  /** A 400 naming {@code field} unless {@code namespace} exists. */
  public void exists(String namespace, String field) {
    if (!namespaces.existsById(namespace)) {
      throw Problems.badRequest(
          field,
          "no namespace named " + namespace + " (PUT /v1/namespaces/" + namespace + " makes it)");
    }
  }
}
