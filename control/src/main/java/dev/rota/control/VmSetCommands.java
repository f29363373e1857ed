package dev.rota.control;

import dev.rota.store.SetUpdate;
import dev.rota.store.Sql;
import dev.rota.store.VmSetRepository;
import dev.rota.store.VmSetRow;
import dev.rota.store.VmTemplate;
import dev.rota.workflows.vmset.VmSetActivities;
import jakarta.inject.Singleton;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a user does to VM sets: the row is stored first, then the set's workflow is started or told;
 * the workflow makes and removes the replicas. A new set's first replicas are made before the
 * answer, by the same pass the workflow makes, so that a burst waits for no workflow task.
 */
@Singleton
public class VmSetCommands {
  private static final Logger log = LoggerFactory.getLogger(VmSetCommands.class);
  private final VmSetRepository sets;
  private final ControlWorkflows workflows;
  private final Clock clock;
  private final VmSetActivitiesImpl passes;

  private final SubmissionGate gate;
  private final SetVersions versions;
  private final NamespaceQuotas quotas;

  public VmSetCommands(
      VmSetRepository sets,
      ControlWorkflows workflows,
      Clock clock,
      VmSetActivitiesImpl passes,
      SubmissionGate gate,
      SetVersions versions,
      NamespaceQuotas quotas) {
    this.quotas = quotas;
    this.sets = sets;
    this.versions = versions;
    this.gate = gate;
    this.workflows = workflows;
    this.clock = clock;
    this.passes = passes;
  }

  /**
   * What a set asks for: how many replicas of which template, spread how, and how a new template is
   * rolled out ({@code maxUnavailable} also bounds its moves).
   */
  public record SetSpec(
      int replicas, VmTemplate template, String spread, int maxUnavailable, SetUpdate update) {
    /** A pool's: it rolls nothing out, its replicas made of the template they are claimed with. */
    public SetSpec(int replicas, VmTemplate template, String spread, int maxUnavailable) {
      this(replicas, template, spread, maxUnavailable, SetUpdate.DEFAULT);
    }
  }

  /**
   * Stores the set, starts its workflow and makes its replicas; {@link Refused} if the name is
   * taken or a deleted set's workflow is still closing under it, {@link NotAnswered} if Temporal
   * cannot start it (the row is taken back: without its workflow the set would never get replicas).
   */
  public VmSetRow create(String name, SetSpec asked, String by) {
    gate.check("VM set '" + name + "'");
    SetSpec spec = withDefaults(asked);
    fits(spec.template(), spec.replicas());
    return start(created(name, sets.nextSeq(), spec), by);
  }

  /**
   * The set {@link #create} would store, checked as it checks it ({@link Refused} when the name is
   * taken); nothing is written.
   */
  public VmSetRow wouldCreate(String name, SetSpec asked) {
    gate.check("VM set '" + name + "'");
    if (sets.findById(name).isPresent()) {
      throw taken(name);
    }
    SetSpec spec = withDefaults(asked);
    fits(spec.template(), spec.replicas());
    return created(name, 0, spec);
  }

  private VmSetRow created(String name, long seq, SetSpec spec) {
    return VmSetRow.created(
            name,
            seq,
            spec.replicas(),
            spec.template(),
            spec.spread(),
            spec.maxUnavailable(),
            clock.instant())
        .withUpdate(spec.update());
  }

  private static Refused taken(String name) {
    return new Refused(
        "a VM set or pool named '" + name + "' already exists (they share their names)");
  }

  /**
   * Stores a warm pool that keeps {@code minReady} replicas of the spec's template ready, and at
   * most {@code max} VMs out at once, kept running or, with {@code standby} {@link
   * dev.rota.core.lifecycle.PoolStandby#SUSPENDED}, suspended; as {@link #create} otherwise. Its
   * workflow is a set's.
   */
  public VmSetRow createPool(
      String name, int minReady, int max, String standby, SetSpec asked, String by) {
    gate.check("pool '" + name + "'");
    SetSpec spec = withDefaults(asked);
    fits(spec.template(), minReady);
    return start(
        VmSetRow.pool(
            name,
            sets.nextSeq(),
            minReady,
            max,
            standby,
            spec.template(),
            spec.spread(),
            spec.maxUnavailable(),
            clock.instant()),
        by);
  }

  private VmSetRow start(VmSetRow row, String by) {
    String name = row.name();
    VmSetRow saved;
    try {
      saved = versions.create(row, by);
    } catch (RuntimeException e) {
      if (Sql.isUniqueViolation(e)) {
        throw taken(name);
      }
      throw e;
    }
    try {
      workflows.startSet(saved.name(), saved.replicas());
    } catch (RuntimeException e) {
      sets.deleteById(saved.name());
      if (e instanceof Refused) {
        throw e;
      }
      throw new NotAnswered(
          "cannot reach Temporal to start VM set '" + saved.name() + "'; nothing was stored");
    }
    try {
      passes.reconcile(new VmSetActivities.SetRef(saved.name()));
    } catch (RuntimeException e) {
      // The workflow's own passes make them.
      log.debug("set {}: replicas left to its workflow: {}", saved.name(), e.toString());
    }
    return saved;
  }

  /** The set's template with the cluster's defaults for what it does not give. */
  private SetSpec withDefaults(SetSpec spec) {
    return new SetSpec(
        spec.replicas(),
        gate.withDefaults(spec.template()),
        spec.spread(),
        spec.maxUnavailable(),
        spec.update());
  }

  /**
   * Replaces what the set asks for. A template that differs from the set's is its next version,
   * stored with the set in one transaction; its workflow rolls it out over the replicas made of the
   * earlier ones.
   */
  public VmSetRow replace(String name, SetSpec asked, String by) {
    VmSetRow updated = versions.change(name, respecified(asked), by);
    workflows.tellSet(name, updated.replicas());
    return updated;
  }

  /** The set {@link #replace} would make of the set named; nothing is written. */
  public VmSetRow wouldReplace(String name, SetSpec asked) {
    return versions.wouldChange(name, respecified(asked));
  }

  private java.util.function.UnaryOperator<VmSetRow> respecified(SetSpec asked) {
    SetSpec spec = withDefaults(asked);
    return set -> {
      String namespace = set.template().namespace();
      if (!spec.template().namespace().equals(namespace)) {
        throw new Refused(
            "VM set '"
                + set.name()
                + "' is in namespace "
                + namespace
                + ": a set stays in the namespace it was made in");
      }
      quotas.check(
          namespace,
          spec.template()
              .usage()
              .times(spec.replicas())
              .minus(set.template().usage().times(set.replicas())));
      return set.respecified(
          spec.replicas(),
          spec.template(),
          spec.spread(),
          spec.maxUnavailable(),
          spec.update(),
          clock.instant());
    };
  }

  /** Throws {@link QuotaExceeded} unless {@code replicas} of {@code template} fit its quota. */
  private void fits(VmTemplate template, int replicas) {
    quotas.check(template.namespace(), template.usage().times(replicas));
  }

  /**
   * Gives the set the template of its {@code version} again, as its next version, rolled out as any
   * new template is.
   */
  public VmSetRow revert(String name, int version, String by) {
    VmSetRow updated = versions.revert(name, version, by);
    workflows.tellSet(name, updated.replicas());
    return updated;
  }

  /**
   * Promotes the canaries of the set's rollout: it goes on to every replica; {@link Refused} when
   * no rollout of its waits for that.
   */
  public VmSetRow promote(String name) {
    VmSetRow set = notDeleting(find(name));
    boolean waits =
        set.templateVersion() != set.rollout().stableVersion()
            && set.update().canary() > 0
            && !set.rollout().promoted();
    if (!waits || sets.promote(name, set.templateVersion(), clock.instant()) == 0) {
      throw new Refused(
          "VM set '"
              + name
              + "' has no canaries waiting to be promoted: its version "
              + set.templateVersion()
              + (set.templateVersion() == set.rollout().stableVersion()
                  ? " is rolled out"
                  : " rolls out " + (set.update().canary() == 0 ? "without canaries" : "already")));
    }
    workflows.tellSet(name, set.replicas());
    return find(name);
  }

  /**
   * Pauses ({@code paused}) or resumes the set's rollouts: a paused set makes and removes no
   * replica for a rollout (it still replaces one it lacks), this one or the next, until resumed.
   */
  public VmSetRow pauseRollouts(String name, boolean paused) {
    if (sets.pauseRollouts(name, paused, clock.instant()) == 0) {
      notDeleting(find(name));
    }
    VmSetRow set = find(name);
    workflows.tellSet(name, set.replicas());
    return set;
  }

  /** Scales the set to {@code replicas}. */
  public void resize(String name, int replicas) {
    VmSetRow set = find(name);
    fits(set.template(), replicas - set.replicas());
    if (sets.resize(name, replicas) == 0) {
      notDeleting(find(name));
    }
    workflows.tellSet(name, replicas);
  }

  /**
   * Marks the set for deletion; its workflow deletes the replicas, then the set. The answer is the
   * row as this marked it, not read again: once told, the workflow may remove a set with no
   * replicas left before a second read, which would then say that a deletion that was accepted
   * found nothing.
   */
  public VmSetRow delete(String name) {
    VmSetRow row = find(name);
    if (sets.markDeleting(name) == 0) {
      // Removed since it was read: its workflow finished an earlier deletion.
      throw new NotFound("VM set", name);
    }
    workflows.tellSet(name, row.replicas());
    return row.markedDeleting();
  }

  private VmSetRow find(String name) {
    return sets.findById(name).orElseThrow(() -> new NotFound("VM set", name));
  }

  private static VmSetRow notDeleting(VmSetRow row) {
    if (row.deleting()) {
      throw new Refused("VM set '" + row.name() + "' is being deleted");
    }
    return row;
  }
}
