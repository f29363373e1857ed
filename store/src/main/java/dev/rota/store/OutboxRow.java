package dev.rota.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import java.time.Instant;

/**
 * One entry of the outbox: what a committed transaction decided to do on an agent (start or remove
 * a task), or news for a VM's workflow (a task event), carried out after the commit by the term's
 * apply step or the agent's report that wrote it.
 *
 * @param kind {@code start} a task, {@code remove} a task, or {@code notify} a VM workflow of a
 *     task event
 * @param vmSeq the submission of the VM the task is of (so that a VM submitted again under the same
 *     name is not told of its predecessor's tasks); null for a removal of a task no VM owns
 * @param event for {@code notify}, a task event's wire name; null for the other kinds
 * @param detail why, for {@code remove}; the event's message, for {@code notify}
 * @param createdAt when it was decided; for an event, when it was observed
 */
@MappedEntity("outbox")
public record OutboxRow(
    @Id long id,
    String kind,
    @Nullable String worker,
    @Nullable String taskId,
    @Nullable String vm,
    @Nullable String detail,
    Instant createdAt,
    int attempts,
    @Nullable Long vmSeq,
    @Nullable String event,
    @Nullable Integer exitCode,
    @Nullable Instant startedAt) {

  public static final String START = "start";
  public static final String REMOVE = "remove";
  public static final String NOTIFY = "notify";
}
