package dev.rota.store;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import java.time.Instant;

/**
 * A task the scheduler placed, and its state as last observed. Written only by the scheduler's
 * observation. {@code id} is {@code vmSeq/taskId}: one generation of one submission of a VM.
 */
@MappedEntity("vm_tasks")
public record VmTaskRow(
    @Id String id,
    String vm,
    long vmSeq,
    int generation,
    String worker,
    String state,
    @Nullable Integer exitCode,
    @Nullable String message,
    Instant placedAt,
    @Nullable Instant startedAt,
    @Nullable Instant endedAt) {

  public static String id(long vmSeq, String taskId) {
    return vmSeq + "/" + taskId;
  }

  /** The name the task carries: its VM's, or for a VM claimed from a pool the replica's. */
  public String taskName() {
    String id = taskId();
    return id.substring(0, id.lastIndexOf('.'));
  }

  /** The task's id on its agent, as it was placed: the VM's task name and the generation. */
  public String taskId() {
    return id.substring(id.indexOf('/') + 1);
  }
}
