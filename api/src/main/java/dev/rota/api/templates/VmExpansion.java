package dev.rota.api.templates;

import dev.rota.api.JsonBodies;
import dev.rota.api.Quantities;
import dev.rota.api.problem.Problems;
import dev.rota.api.vms.VmRequest;
import dev.rota.store.ClusterSettingsRepository;
import dev.rota.store.ClusterSettingsRow;
import dev.rota.store.TemplateRepository;
import dev.rota.store.TemplateRow;
import io.micronaut.core.type.Argument;
import io.micronaut.json.JsonMapper;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.RecordComponent;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A VM request as it is meant: one made {@code fromTemplate} is the template's spec with its
 * parameters put at their fields; one that names a {@code size} has that instance size's resources,
 * but for those it gives itself.
 */
@Singleton
public class VmExpansion {
  /** What a request made from a template gives beside the template's name. */
  private static final Set<String> WITH_TEMPLATE =
      Set.of("name", "fromTemplate", "parameters", "namespace");

  private final TemplateRepository templates;
  private final ClusterSettingsRepository settings;
  private final JsonBodies bodies;
  private final JsonMapper json;

  public VmExpansion(
      TemplateRepository templates,
      ClusterSettingsRepository settings,
      JsonBodies bodies,
      JsonMapper json) {
    this.templates = templates;
    this.settings = settings;
    this.bodies = bodies;
    this.json = json;
  }

  /** {@code request} expanded; its rejections name their fields under {@code field}. */
  public VmRequest expand(VmRequest request, String field) {
    if (request.fromTemplate() == null
        && request.parameters() != null
        && !request.parameters().isEmpty()) {
      throw Problems.badRequest(
          field + "parameters", "are a template's: give fromTemplate, the template they are for");
    }
    VmRequest vm = request.fromTemplate() == null ? request : fromTemplate(request, field);
    return vm.size() == null ? vm : sized(vm, field);
  }

  private VmRequest fromTemplate(VmRequest request, String field) {
    for (RecordComponent c : VmRequest.class.getRecordComponents()) {
      if (!WITH_TEMPLATE.contains(c.getName()) && value(c, request) != null) {
        throw Problems.badRequest(
            field + c.getName(),
            "cannot be given with fromTemplate: the template gives the spec, its parameters what"
                + " it lets change");
      }
    }
    TemplateRow template =
        templates
            .findById(request.fromTemplate())
            .orElseThrow(
                () ->
                    Problems.badRequest(
                        field + "fromTemplate",
                        "template '"
                            + request.fromTemplate()
                            + "' does not exist (POST /v1/templates makes it)"));
    // Made in the template's namespace, unless it names another, which a template cannot serve.
    String namespace = request.namespace() == null ? template.namespace() : request.namespace();
    if (!template.namespace().equals(namespace)) {
      throw Problems.badRequest(
          field + "fromTemplate",
          "template '"
              + template.name()
              + "' is in namespace "
              + template.namespace()
              + ", not "
              + namespace
              + ": a VM is made of the templates of its own namespace");
    }
    Map<String, Object> spec =
        new LinkedHashMap<>(read(template.spec(), Argument.mapOf(String.class, Object.class)));
    Map<String, Object> given =
        request.parameters() == null ? Map.of() : new TreeMap<>(request.parameters());
    Map<String, TemplateRequest.Parameter> declared = new LinkedHashMap<>();
    for (TemplateRequest.Parameter p :
        read(template.parameters(), Argument.listOf(TemplateRequest.Parameter.class))) {
      declared.put(p.name(), p);
    }
    for (String name : given.keySet()) {
      if (!declared.containsKey(name)) {
        throw Problems.badRequest(
            field + "parameters." + name,
            "template "
                + template.name()
                + " has no parameter "
                + name
                + (declared.isEmpty() ? "; it has none" : "; it has " + declared.keySet()));
      }
    }
    for (TemplateRequest.Parameter p : declared.values()) {
      String named = field + "parameters." + p.name();
      Object value = given.containsKey(p.name()) ? given.get(p.name()) : p.defaultValue();
      if (value == null) {
        throw Problems.badRequest(named, "is required by template " + template.name());
      }
      Parameters.put(spec, p.field(), Parameters.checked(p.type(), value, named), named);
    }
    spec.put("name", request.name());
    spec.put("namespace", namespace);
    return bodies.readPart(field.isEmpty() ? "spec" : field + "spec", spec, VmRequest.class);
  }

  private VmRequest sized(VmRequest vm, String field) {
    Map<String, Map<String, Long>> sizes = sizes();
    Map<String, Long> size = sizes.get(vm.size());
    if (size == null) {
      throw Problems.badRequest(
          field + "size",
          "no instance size "
              + vm.size()
              + (sizes.isEmpty()
                  ? "; the cluster has none (PUT /v1/cluster-settings instanceSizes)"
                  : "; the cluster has " + new TreeSet<>(sizes.keySet())));
    }
    Map<String, Object> resources = new HashMap<>(size);
    if (vm.resources() != null) {
      resources.putAll(vm.resources());
    }
    return vm.withResources(resources);
  }

  /** The cluster's instance sizes, by name: each a set of resources, memory in MiB. */
  public Map<String, Map<String, Long>> sizes() {
    String stored =
        settings
            .findById(ClusterSettingsRow.ID)
            .map(ClusterSettingsRow::instanceSizes)
            .orElse(null);
    if (stored == null) {
      return Map.of();
    }
    return read(stored, Argument.mapOf(Argument.STRING, Argument.mapOf(String.class, Long.class)));
  }

  /**
   * The sizes as given, checked, as they are stored (read back by {@link #sizes}); null for none.
   */
  public String storedSizes(Map<String, Map<String, Object>> given) {
    if (given == null || given.isEmpty()) {
      return null;
    }
    try {
      return json.writeValueAsString(checkedSizes(given));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The sizes as given, checked: each a set of resources, memory written in MiB or with a unit. */
  private static Map<String, Map<String, Long>> checkedSizes(
      Map<String, Map<String, Object>> given) {
    Map<String, Map<String, Long>> sizes = new TreeMap<>();
    given.forEach(
        (name, resources) -> {
          if (!name.matches(dev.rota.api.Names.DNS_LABEL)) {
            throw Problems.badRequest(
                "instanceSizes." + name, "must be named by a DNS label, such as small");
          }
          Map<String, Long> size = Quantities.parse("instanceSizes." + name, resources);
          for (String needed : List.of("cpu", "memory")) {
            if (Long.valueOf(0).equals(size.get(needed))) {
              throw Problems.badRequest(
                  "instanceSizes." + name + "." + needed,
                  "must be at least 1: a VM cannot run on none (leave it out for the VM's own)");
            }
          }
          sizes.put(name, size);
        });
    return sizes;
  }

  private <T> T read(String text, Argument<T> type) {
    try {
      return json.readValue(text, type);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Object value(RecordComponent c, Object record) {
    try {
      return c.getAccessor().invoke(record);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }
}
