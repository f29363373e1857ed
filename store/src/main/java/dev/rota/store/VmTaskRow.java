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

  public String taskId() {
    return vm + "." + generation;
  }
}
