package dev.rota.scheduler.term;

import io.micronaut.transaction.TransactionOperations;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an agent's answer to a removal proves (the task ended and its agent forgot it), recorded at
 * once, whoever asked for the removal (a term, or a VM's workflow stopping or deleting it): a move
 * it ends is over, and the room a task no longer wanted held is free now rather than once a term
 * next reads the worker's task list. Should the write fail, the term records the same from the
 * list.
 */
@Singleton
public class RemovedTasks {
  private static final Logger log = LoggerFactory.getLogger(RemovedTasks.class);

  private final TaskObservations observations;
  private final TransactionOperations<Connection> tx;
  private final Clock clock;

  public RemovedTasks(
      TaskObservations observations, TransactionOperations<Connection> tx, Clock clock) {
    this.observations = observations;
    this.tx = tx;
    this.clock = clock;
  }

  /** Records the removal of {@code taskId} from {@code worker}; whether it freed room. */
  public boolean removed(String worker, String taskId) {
    return removedAll(java.util.List.of(java.util.Map.entry(worker, taskId))) > 0;
  }

  /**
   * {@link #removed} for each of {@code tasks} (a worker's name and a task id each), in one
   * transaction; how many freed room.
   */
  public int removedAll(java.util.List<java.util.Map.Entry<String, String>> tasks) {
    if (tasks.isEmpty()) {
      return 0;
    }
    try {
      return tx.executeWrite(
          status -> {
            java.time.Instant now = clock.instant();
            int freed = 0;
            for (java.util.Map.Entry<String, String> task : tasks) {
              if (observations.removedFrom(task.getKey(), task.getValue(), now)) {
                freed++;
              }
            }
            return freed;
          });
    } catch (RuntimeException e) {
      log.debug("{} tasks removed; the term records it: {}", tasks.size(), e.toString());
      return 0;
    }
  }
}
