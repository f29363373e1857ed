package dev.rota.api.auth;

import dev.rota.store.SecretRepository;
import dev.rota.store.SecretRow;
import dev.rota.store.TemplateRepository;
import dev.rota.store.TemplateRow;
import dev.rota.store.VmRepository;
import dev.rota.store.VmSetRepository;
import jakarta.inject.Singleton;
import java.util.Optional;

/** The namespace an object named in a route's path lives in: what a namespace's role reaches. */
@Singleton
public class ObjectNamespaces {
  private final VmRepository vms;
  private final VmSetRepository sets;
  private final TemplateRepository templates;
  private final SecretRepository secrets;

  public ObjectNamespaces(
      VmRepository vms,
      VmSetRepository sets,
      TemplateRepository templates,
      SecretRepository secrets) {
    this.vms = vms;
    this.sets = sets;
    this.templates = templates;
    this.secrets = secrets;
  }

  /** Empty when there is no such object: the route then answers 404 as it would to anyone. */
  public Optional<String> of(NamespaceScope.From kind, String name) {
    return switch (kind) {
      case VM -> vms.findById(name).map(vm -> vm.spec().namespace());
      case VM_SET -> sets.findById(name).map(set -> set.template().namespace());
      case TEMPLATE -> templates.findById(name).map(TemplateRow::namespace);
      case SECRET -> secrets.findById(name).map(SecretRow::namespace);
      case NAMESPACE -> Optional.of(name);
      case QUERY, BODY -> throw new IllegalArgumentException(kind + " names no object");
    };
  }
}
