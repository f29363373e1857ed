package dev.rota.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import java.time.Instant;

/**
 * One action a committed term decided.
 *
 * @param kind {@code start} a task, {@code remove} a task, or {@code notify} a VM workflow
 */
@MappedEntity("term_actions")
public record TermActionRow(
    @Id long id,
    String kind,
    @Nullable String worker,
    @Nullable String taskId,
    @Nullable String vm,
    @Nullable String detail,
    Instant createdAt,
    int attempts) {

  public static final String START = "start";
  public static final String REMOVE = "remove";
  public static final String NOTIFY = "notify";
}
