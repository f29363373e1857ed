package dev.rota.api.plans;

import dev.rota.api.vms.VmView;
import dev.rota.api.vmsets.VmSetView;
import dev.rota.control.SetPlans;
import dev.rota.control.VmCommands;
import io.micronaut.core.type.Argument;
import io.micronaut.json.JsonMapper;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** Dry runs' answers, from what the control layer planned. */
@Singleton
public class Plans {
  /** What a user gives of a set; the rest of its view is the server's. */
  private static final List<String> SET_FIELDS =
      List.of("replicas", "template", "spread", "maxUnavailable", "update");

  private final JsonMapper json;

  public Plans(JsonMapper json) {
    this.json = json;
  }

  /**
   * VM {@code name}'s creation; a claim from a pool shows no VM as it would be (the replica it
   * takes is renamed as it is claimed).
   */
  public PlanView vm(String name, VmCommands.VmPlan plan) {
    return new PlanView(
        "vm",
        name,
        "create",
        List.of(),
        null,
        List.of(PlanView.Placement.of(name, plan.placement())),
        plan.vm().name().equals(name) ? VmView.of(plan.vm()) : null,
        null);
  }

  /** A set's creation or change ({@code was} null: its creation). */
  public PlanView set(SetPlans.SetPlan plan, VmSetView was, VmSetView wouldBe) {
    List<PlanView.FieldChange> changes = was == null ? List.of() : changes(was, wouldBe);
    List<PlanView.Placement> placements = new ArrayList<>();
    plan.placements().forEach((vm, outcome) -> placements.add(PlanView.Placement.of(vm, outcome)));
    boolean changed = !changes.isEmpty() || !plan.make().isEmpty() || !plan.remove().isEmpty();
    return new PlanView(
        "vm-set",
        wouldBe.name(),
        was == null ? "create" : changed ? "update" : "unchanged",
        changes,
        new PlanView.Replicas(plan.make(), plan.remove(), plan.replace()),
        placements,
        null,
        wouldBe);
  }

  /** The fields a user gives that differ between two views of a set, leaf by leaf. */
  private List<PlanView.FieldChange> changes(VmSetView was, VmSetView wouldBe) {
    Map<String, Object> from = flat(was);
    Map<String, Object> to = flat(wouldBe);
    List<String> fields = new ArrayList<>(from.keySet());
    to.keySet().stream().filter(f -> !from.containsKey(f)).forEach(fields::add);
    fields.sort(null);
    List<PlanView.FieldChange> changes = new ArrayList<>();
    for (String field : fields) {
      if (!Objects.equals(from.get(field), to.get(field))) {
        changes.add(new PlanView.FieldChange(field, from.get(field), to.get(field)));
      }
    }
    return changes;
  }

  /** The view's user-given fields, objects flattened to dotted names; lists kept whole. */
  private Map<String, Object> flat(VmSetView view) {
    Map<String, Object> tree;
    try {
      tree =
          json.readValue(json.writeValueAsBytes(view), Argument.mapOf(String.class, Object.class));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Map<String, Object> flat = new LinkedHashMap<>();
    for (String field : SET_FIELDS) {
      flatten(field, tree.get(field), flat);
    }
    return flat;
  }

  private static void flatten(String prefix, Object value, Map<String, Object> into) {
    if (value instanceof Map<?, ?> map && !map.isEmpty()) {
      map.forEach((k, v) -> flatten(prefix + "." + k, v, into));
    } else if (value != null) {
      into.put(prefix, value);
    }
  }
}
