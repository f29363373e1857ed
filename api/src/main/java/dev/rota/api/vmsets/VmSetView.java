package dev.rota.api.vmsets;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.rota.api.Named;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import java.time.Instant;

/**
 * A VM set as the API shows it: what the user asked for, and how its replicas stand.
 *
 * @param spread {@code "none"}, {@code "distinct-workers"} or {@code {"label": key}}, as it was
 *     given
 * @param version the version of its template its replicas are made of (from 1, one more at each
 *     change of template)
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
@Serdeable
public record VmSetView(
    String name,
    int replicas,
    dev.rota.api.vms.VmSpecView template,
    Object spread,
    int maxUnavailable,
    Update update,
    int version,
    Status status,
    Instant createdAt)
    implements Named {

  /** How a new template is rolled out, as it was given (defaults filled in). */
  @Serdeable
  public record Update(
      int maxSurge,
      String minHealthyTime,
      String progressDeadline,
      boolean autoRevert,
      int canary,
      boolean autoPromote) {}

  /**
   * @param updated how many replicas are made of the set's current template version
   * @param stableVersion the version that last rolled out whole: the one an auto-revert goes back
   *     to
   * @param rollout {@code paused} (its rollouts wait until resumed), {@code complete}, {@code
   *     rolling} or {@code canary} (its canaries made or being made, until promoted)
   * @param message what keeps the set from {@code desired} running replicas of its current
   *     template, or null when nothing does
   */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  @Serdeable
  public record Status(
      int desired,
      long running,
      long ready,
      long pending,
      long updated,
      int stableVersion,
      String rollout,
      @Nullable String message) {}
}
