package dev.rota.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import java.time.Instant;

/**
 * One entry of the outbox: what a committed transaction decided to do on an agent (start or remove
 * a task, deliver user data to one), or news for a VM's workflow (a task event), carried out after
 * the commit by the term's apply step or the agent's report that wrote it.
 *
 * @param kind {@code start} a task, {@code remove} a task, {@code deliver} user data to a running
 *     task's guest, or {@code notify} a VM workflow of a task event
 * @param vmSeq the submission of the VM the task is of (so that a VM submitted again under the same
 *     name is not told of its predecessor's tasks); null for a removal of a task no VM owns
 * @param event for {@code notify}, a task event's wire name; null for the other kinds
 * @param detail why, for {@code remove}; the event's message, for {@code notify}
 * @param createdAt when it was decided; for an event, when it was observed
 * @param payload for {@code deliver}, the user data it hands the guest; null for the other kinds
 * @param secret for {@code deliver}, the secret holding that user data instead; else null
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
    @Nullable Instant startedAt,
    @Nullable String payload,
    @Nullable String secret) {

  public static final String START = "start";
  public static final String REMOVE = "remove";

  /**
   * A removal of a task whose VM is gone, its logs with it: kept, they would outlive the deletion
   * that dropped the rest.
   */
  public static final String DISCARD = "discard";

  public static final String NOTIFY = "notify";

  /** User data written into a running guest claimed from a pool, through its guest agent. */
  public static final String DELIVER = "deliver";
}
