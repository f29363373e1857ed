package dev.rota.store;

import dev.rota.core.lifecycle.PoolStandby;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import io.micronaut.data.annotation.Relation;
import io.micronaut.data.annotation.TypeDef;
import io.micronaut.data.annotation.Version;
import io.micronaut.data.model.DataType;
import java.time.Instant;

/**
 * A VM set as its user asked for it (the API's): how many replicas of which template, spread how.
 * {@code deleting} is the user's request to remove it; {@code message} is its workflow's word on
 * what keeps the replicas from matching (a name taken by another VM), null when nothing does.
 *
 * <p>A warm pool is a set whose replicas are handed out, running and ready, as users' VMs ({@code
 * poolMax} not null): it keeps {@code replicas} of them not yet claimed, and at most {@code
 * poolMax} VMs out at once, its replicas and the VMs claimed from it together. Its replicas take
 * ordinals never used before ({@code nextOrdinal}): a claimed VM's tasks go on carrying its
 * replica's name, which no other replica may then take.
 *
 * @param spread as {@link dev.rota.core.model.Spread#wireName()} spells it
 */
@MappedEntity("vm_sets")
public record VmSetRow(
    @Id String name,
    long seq,
    int replicas,
    @TypeDef(type = DataType.STRING, converter = Converters.Template.class) VmTemplate template,
    String spread,
    int maxUnavailable,
    boolean deleting,
    @Nullable String message,
    Instant createdAt,
    @Version long version,
    @Nullable Integer poolMax,
    int nextOrdinal,
    @Nullable String poolStandby,
    int templateVersion,
    @Relation(Relation.Kind.EMBEDDED) SetUpdate update,
    @Relation(Relation.Kind.EMBEDDED) SetRollout rollout) {

  public VmSetRow {
    update = update == null ? SetUpdate.DEFAULT : update;
    rollout = rollout == null ? SetRollout.FIRST : rollout;
  }

  public static VmSetRow created(
      String name,
      long seq,
      int replicas,
      VmTemplate template,
      String spread,
      int maxUnavailable,
      Instant now) {
    return new VmSetRow(
        name,
        seq,
        replicas,
        template,
        spread,
        maxUnavailable,
        false,
        null,
        now,
        0,
        null,
        0,
        null,
        1,
        SetUpdate.DEFAULT,
        SetRollout.FIRST);
  }

  /**
   * A warm pool: {@code minReady} replicas kept ready, {@code max} VMs out at most; {@code standby}
   * {@link PoolStandby#SUSPENDED}'s name, or null to keep them running.
   */
  public static VmSetRow pool(
      String name,
      long seq,
      int minReady,
      int max,
      String standby,
      VmTemplate template,
      String spread,
      int maxUnavailable,
      Instant now) {
    return new VmSetRow(
        name,
        seq,
        minReady,
        template,
        spread,
        maxUnavailable,
        false,
        null,
        now,
        0,
        max,
        0,
        standby,
        1,
        SetUpdate.DEFAULT,
        SetRollout.FIRST);
  }

  public boolean isPool() {
    return poolMax != null;
  }

  /** Whether it is a pool that keeps its replicas suspended until they are claimed. */
  public boolean keepsSuspended() {
    return PoolStandby.of(poolStandby) == PoolStandby.SUSPENDED;
  }

  /**
   * The same set as the user now wants it, {@code now}: a template that differs is its next
   * version, whose rollout begins.
   */
  public VmSetRow respecified(
      int newReplicas,
      VmTemplate newTemplate,
      String newSpread,
      int newMaxUnavailable,
      SetUpdate newUpdate,
      Instant now) {
    boolean same = newTemplate.equals(template);
    return new VmSetRow(
        name,
        seq,
        newReplicas,
        newTemplate,
        newSpread,
        newMaxUnavailable,
        deleting,
        message,
        createdAt,
        version,
        poolMax,
        nextOrdinal,
        poolStandby,
        same ? templateVersion : templateVersion + 1,
        newUpdate,
        same ? rollout : rollout.begun(now));
  }

  /** The same set, its rollout's canaries promoted: the rollout goes on to every replica. */
  public VmSetRow withCanariesPromoted() {
    return new VmSetRow(
        name,
        seq,
        replicas,
        template,
        spread,
        maxUnavailable,
        deleting,
        message,
        createdAt,
        version,
        poolMax,
        nextOrdinal,
        poolStandby,
        templateVersion,
        update,
        new SetRollout(
            rollout.stableVersion(),
            rollout.available(),
            rollout.progressAt(),
            true,
            rollout.paused()));
  }

  /** The same set with how it rolls out a new template. */
  public VmSetRow withUpdate(SetUpdate newUpdate) {
    // The same template: no rollout begins, so the time given is never read.
    return respecified(replicas, template, spread, maxUnavailable, newUpdate, createdAt);
  }

  /** The same set, marked for deletion. */
  public VmSetRow markedDeleting() {
    return new VmSetRow(
        name,
        seq,
        replicas,
        template,
        spread,
        maxUnavailable,
        true,
        message,
        createdAt,
        version,
        poolMax,
        nextOrdinal,
        poolStandby,
        templateVersion,
        update,
        rollout);
  }

  /** The VM name of replica {@code ordinal}. */
  public static String replicaName(String set, int ordinal) {
    return set + "-" + ordinal;
  }
}
