package dev.rota.control;

import dev.rota.control.VmSetCommands.SetSpec;
import dev.rota.core.lifecycle.SetRule;
import dev.rota.core.model.Spread;
import dev.rota.scheduler.term.PlacementPreview;
import dev.rota.store.VmRepository;
import dev.rota.store.VmRow;
import dev.rota.store.VmSetRow;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a set's creation or change would do, as a dry run: the set as it would be stored, what its
 * next pass would make and remove, which replicas its rollout would replace, and where the replicas
 * it makes would go. The same checks and the same rule as the real thing, on the state as it is;
 * nothing is written.
 */
@Singleton
public class SetPlans {
  private final VmSetCommands commands;
  private final VmRepository vms;
  private final dev.rota.store.VmSetRepository sets;
  private final SetVersions setVersions;
  private final AskedDeletions asked;
  private final PlacementPreview preview;
  private final Clock clock;

  public SetPlans(
      VmSetCommands commands,
      VmRepository vms,
      dev.rota.store.VmSetRepository sets,
      SetVersions setVersions,
      AskedDeletions asked,
      PlacementPreview preview,
      Clock clock) {
    this.commands = commands;
    this.vms = vms;
    this.sets = sets;
    this.setVersions = setVersions;
    this.asked = asked;
    this.preview = preview;
    this.clock = clock;
  }

  /**
   * A dry run's answer for a set.
   *
   * @param set the set as it would be stored
   * @param make the replicas its next pass would make
   * @param remove the replicas its next pass would remove
   * @param replace every replica its rollout would replace, this pass or a later one
   * @param placements where each replica it would make would go now
   */
  public record SetPlan(
      VmSetRow set,
      List<String> make,
      List<String> remove,
      List<String> replace,
      Map<String, PlacementPreview.Outcome> placements) {}

  /** What {@link VmSetCommands#create} would do. */
  public SetPlan create(String name, SetSpec spec) {
    VmSetRow set = commands.wouldCreate(name, spec);
    List<Integer> ordinals = new ArrayList<>();
    for (int i = 0; i < set.replicas(); i++) {
      ordinals.add(i);
    }
    return planned(set, ordinals, List.of(), List.of());
  }

  /** What {@link VmSetCommands#replace} would do. */
  public SetPlan replace(String name, SetSpec spec) {
    int was = sets.findById(name).map(VmSetRow::templateVersion).orElse(0);
    VmSetRow set = commands.wouldReplace(name, spec);
    Instant now = clock.instant();
    List<VmRow> members = vms.replicasOf(name);
    Set<Long> going = asked.askedLately(members, now);
    Set<Integer> current = new HashSet<>();
    Instant failuresSince = null;
    if (set.templateVersion() != was) {
      // A new version: those of an earlier one with its template are of it ({@link SetVersions}).
      current.addAll(setVersions.withTemplateOf(set));
    } else if (set.templateVersion() != set.rollout().stableVersion()) {
      failuresSince = setVersions.since(set);
    }
    SetRule.Plan plan = VmSetActivitiesImpl.plan(set, members, going, current, failuresSince, now);
    List<String> replace = new ArrayList<>();
    for (VmRow m : members) {
      int version = VmSetActivitiesImpl.versionOf(m, set);
      if (!going.contains(m.seq())
          && version != set.templateVersion()
          && !current.contains(version)) {
        replace.add(m.name());
      }
    }
    replace.sort(null);
    return planned(
        set,
        plan.make(),
        plan.remove().stream().map(o -> VmSetRow.replicaName(name, o)).toList(),
        replace);
  }

  private SetPlan planned(
      VmSetRow set, List<Integer> make, List<String> remove, List<String> replace) {
    Instant now = clock.instant();
    List<VmRow> made = make.stream().map(o -> VmSetActivitiesImpl.replica(set, o, now)).toList();
    return new SetPlan(
        set,
        made.stream().map(VmRow::name).toList(),
        remove,
        replace,
        made.isEmpty()
            ? Map.of()
            : preview.place(made, Spread.parse(set.spread()).orElse(Spread.NONE)));
  }
}
