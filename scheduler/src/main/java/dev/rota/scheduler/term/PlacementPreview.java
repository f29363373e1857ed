package dev.rota.scheduler.term;

import dev.rota.core.model.Spread;
import dev.rota.core.scheduling.PlacementPlan;
import dev.rota.core.scheduling.Rebalancing;
import dev.rota.core.scheduling.TermPlan;
import dev.rota.core.scheduling.TermPlanner;
import dev.rota.core.scheduling.VmSnapshot;
import dev.rota.scheduler.settings.WorkerSettings;
import dev.rota.store.VmRow;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where VMs not yet submitted would go: a term planned on the store's snapshot as it is now, with
 * them pending behind every VM that waits already, as the next term would place them; nothing is
 * written. A dry run's answer ({@code ?dryRun=true}).
 */
@Singleton
public class PlacementPreview {
  private final TermSnapshotReader reader;
  private final WorkerSettings workers;
  private final Clock clock;

  public PlacementPreview(TermSnapshotReader reader, WorkerSettings workers, Clock clock) {
    this.reader = reader;
    this.workers = workers;
    this.clock = clock;
  }

  /**
   * Where one VM would go: the worker, and what made it the choice beyond room; or, when it would
   * wait, why.
   */
  public record Outcome(String worker, String why, String waiting) {}

  /**
   * Where each of {@code proposed} would go now, by name, in their order; replicas of a set spread
   * as {@code spread} says.
   */
  public Map<String, Outcome> place(List<VmRow> proposed, Spread spread) {
    Instant now = clock.instant();
    boolean images = proposed.stream().anyMatch(v -> v.spec().image() != null);
    // Observed "now": no agent's list counts as this term's, so nothing is reconciled.
    TermSnapshot snapshot = reader.read(now, now, images);
    java.util.Set<String> names = new java.util.HashSet<>();
    proposed.forEach(v -> names.add(v.name()));
    // A proposed VM of a name held (a replica a set's change would replace) is the new one.
    List<VmSnapshot> vms = new ArrayList<>(snapshot.vms());
    vms.removeIf(held -> names.contains(held.name()));
    Map<String, Spread> spreads = new HashMap<>();
    long seq = Long.MAX_VALUE - proposed.size();
    for (VmRow v : proposed) {
      if (v.membership().vmSet() != null) {
        spreads.put(v.membership().vmSet(), spread);
      }
      vms.add(Snapshots.vm(v.withSeq(++seq).scheduling(), now, spreads));
    }
    TermPlan plan =
        TermPlanner.plan(
            now,
            null,
            snapshot.profile(),
            workers.health(),
            snapshot.workers(),
            vms,
            List.copyOf(snapshot.taskRows().keySet()),
            Map.of(),
            new Rebalancing(0, snapshot.movable()),
            snapshot.pausedBecause(),
            snapshot.preemption(),
            snapshot.quotas());
    Map<String, Outcome> found = new HashMap<>();
    for (PlacementPlan.Placement p : plan.placement().placed()) {
      found.put(p.vm(), new Outcome(p.worker(), p.why(), null));
    }
    for (PlacementPlan.Unplaced u : plan.placement().pending()) {
      found.put(u.vm(), new Outcome(null, null, u.reason()));
    }
    Map<String, Outcome> outcomes = new LinkedHashMap<>();
    for (VmRow v : proposed) {
      outcomes.put(
          v.name(), found.getOrDefault(v.name(), new Outcome(null, null, "not placed now")));
    }
    return outcomes;
  }
}
