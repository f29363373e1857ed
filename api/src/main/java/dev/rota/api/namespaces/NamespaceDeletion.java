package dev.rota.api.namespaces;

import dev.rota.store.NamespaceRepository;
import dev.rota.store.ServiceAccountRepository;
import dev.rota.store.ServiceAccountRow;
import io.micronaut.transaction.annotation.Transactional;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A namespace deleted takes the roles held in it along, as a Kubernetes namespace takes its role
 * bindings: a namespace made again under the name grants the old one's accounts nothing.
 */
@Singleton
public class NamespaceDeletion {
  private final NamespaceRepository namespaces;
  private final ServiceAccountRepository accounts;

  public NamespaceDeletion(NamespaceRepository namespaces, ServiceAccountRepository accounts) {
    this.namespaces = namespaces;
    this.accounts = accounts;
  }

  /**
   * Deletes namespace {@code name}, and every role held in it, when no VM counts against it; false
   * when one does. Both or neither: a crash between them would leave roles for a later namespace of
   * the name.
   */
  @Transactional
  public boolean deleteEmpty(String name) {
    if (namespaces.deleteEmpty(name) == 0) {
      return false;
    }
    for (ServiceAccountRow a : accounts.findAll()) {
      if (a.namespaceRoles().containsKey(name)) {
        Map<String, List<String>> kept = new TreeMap<>(a.namespaceRoles());
        kept.remove(name);
        accounts.update(
            new ServiceAccountRow(
                a.name(), a.tokenHash(), a.roles(), kept, a.worker(), a.createdAt()));
      }
    }
    return true;
  }
}
