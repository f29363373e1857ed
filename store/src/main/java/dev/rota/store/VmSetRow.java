package dev.rota.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import io.micronaut.data.annotation.TypeDef;
import io.micronaut.data.annotation.Version;
import io.micronaut.data.model.DataType;
import java.time.Instant;

/**
 * A VM set as its user asked for it (the API's): how many replicas of which template, spread how.
 * {@code deleting} is the user's request to remove it; {@code message} is its workflow's word on
 * what keeps the replicas from matching (a name taken by another VM), null when nothing does.
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
    @Version long version) {

  public static VmSetRow created(
      String name,
      long seq,
      int replicas,
      VmTemplate template,
      String spread,
      int maxUnavailable,
      Instant now) {
    return new VmSetRow(name, seq, replicas, template, spread, maxUnavailable, false, null, now, 0);
  }

  /** The same set as the user now wants it. */
  public VmSetRow respecified(
      int newReplicas, VmTemplate newTemplate, String newSpread, int newMaxUnavailable) {
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
        version);
  }

  /** The same set, marked for deletion. */
  public VmSetRow markedDeleting() {
    return new VmSetRow(
        name, seq, replicas, template, spread, maxUnavailable, true, message, createdAt, version);
  }

  /** The VM name of replica {@code ordinal}. */
  public static String replicaName(String set, int ordinal) {
    return set + "-" + ordinal;
  }
}
