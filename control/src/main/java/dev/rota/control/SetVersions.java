package dev.rota.control;

import dev.rota.store.CertainCommits;
import dev.rota.store.Conflicts;
import dev.rota.store.VmSetRepository;
import dev.rota.store.VmSetRow;
import dev.rota.store.VmSetVersionRepository;
import dev.rota.store.VmSetVersionRow;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Instant;
import java.util.function.UnaryOperator;

/**
 * A set's template versions as they are written: a change of a set that gives it a new template
 * stores that template as the set's next version in the change's own transaction, so that no set
 * ever runs a template its history does not have.
 */
@Singleton
public class SetVersions {
  private final VmSetRepository sets;
  private final VmSetVersionRepository versions;
  private final dev.rota.store.VmRepository vms;
  private final CertainCommits certain;
  private final Clock clock;

  public SetVersions(
      VmSetRepository sets,
      VmSetVersionRepository versions,
      CertainCommits certain,
      Clock clock,
      dev.rota.store.VmRepository vms) {
    this.vms = vms;
    this.sets = sets;
    this.versions = versions;
    this.certain = certain;
    this.clock = clock;
  }

  /** Stores a new set with its template as its version 1, given {@code by}. */
  VmSetRow create(VmSetRow row, String by) {
    return certain.write(
        () -> {
          VmSetRow stored = sets.save(row);
          keep(stored, by);
          return stored;
        });
  }

  /**
   * Applies {@code change} to the set named (read again should another write come between), {@link
   * Refused} while it is being deleted; a new template is kept as its next version, given {@code
   * by}.
   */
  public VmSetRow change(String name, UnaryOperator<VmSetRow> change, String by) {
    return Conflicts.retry(
        () ->
            certain.write(
                () -> {
                  VmSetRow was = changeable(name);
                  VmSetRow now = sets.update(change.apply(was));
                  if (now.templateVersion() != was.templateVersion()) {
                    keep(now, by);
                    adoptSameTemplate(now);
                  }
                  return now;
                }));
  }

  /** The set named as {@link #change} would make it; nothing is written. */
  public VmSetRow wouldChange(String name, UnaryOperator<VmSetRow> change) {
    return change.apply(changeable(name));
  }

  /** The set named, {@link Refused} while it is being deleted. */
  private VmSetRow changeable(String name) {
    VmSetRow set = find(name);
    if (set.deleting()) {
      throw new Refused("VM set '" + name + "' is being deleted");
    }
    return set;
  }

  /**
   * Gives the set named the template of its {@code version} again, as its next version (a rollout
   * like any other); {@link NotFound} when it never had that version.
   */
  public VmSetRow revert(String name, int version, String by) {
    return revert(name, version, by, false);
  }

  /**
   * As {@link #revert(String, int, String)}; with {@code promoted}, its rollout waits for no
   * canaries, in the same write (going back to what ran well).
   */
  public VmSetRow revert(String name, int version, String by, boolean promoted) {
    VmSetVersionRow back =
        versions
            .find(name, version)
            .orElseThrow(() -> new NotFound("version " + version + " of VM set", name));
    return change(
        name,
        set -> {
          VmSetRow next =
              set.respecified(
                  set.replicas(),
                  back.template(),
                  set.spread(),
                  set.maxUnavailable(),
                  set.update(),
                  clock.instant());
          return promoted && next.templateVersion() != set.templateVersion()
              ? next.withCanariesPromoted()
              : next;
        },
        by);
  }

  /**
   * Since when the set has its current template: a replica that failed before then failed under
   * another one (a replica adopted by a version that went back to its template).
   */
  public Instant since(VmSetRow set) {
    return versions
        .find(set.name(), set.templateVersion())
        .map(VmSetVersionRow::createdAt)
        .orElse(set.createdAt());
  }

  /**
   * The replicas made of an earlier version with the new version's template are of the new one:
   * going back to a template replaces only the replicas that have another.
   */
  private void adoptSameTemplate(VmSetRow set) {
    java.util.List<Integer> same = withTemplateOf(set);
    if (!same.isEmpty()) {
      vms.adoptSetVersion(set.name(), same, set.templateVersion());
    }
  }

  /** The set's stored versions other than its current one whose template is its template. */
  java.util.List<Integer> withTemplateOf(VmSetRow set) {
    return versions.newestOf(set.name(), Integer.MAX_VALUE).stream()
        .filter(v -> v.version() != set.templateVersion())
        .filter(v -> v.template().equals(set.template()))
        .map(VmSetVersionRow::version)
        .toList();
  }

  private void keep(VmSetRow set, String by) {
    versions.save(
        new VmSetVersionRow(
            sets.nextSeq(),
            set.name(),
            set.templateVersion(),
            set.template(),
            clock.instant(),
            by));
  }

  private VmSetRow find(String name) {
    return sets.findById(name).orElseThrow(() -> new NotFound("VM set", name));
  }
}
