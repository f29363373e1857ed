package dev.rota.store;

import jakarta.inject.Singleton;
import java.time.Instant;

/**
 * Removes a worker with what the store kept of its agent's word (its task list, its tasks'
 * failures); the tasks placed on it are the reconciler's to lose or forget, as for any worker gone.
 */
@Singleton
public class WorkerRemoval {
  private final WorkerRepository workers;
  private final AgentTaskRepository agentTasks;

  public WorkerRemoval(WorkerRepository workers, AgentTaskRepository agentTasks) {
    this.workers = workers;
    this.agentTasks = agentTasks;
  }

  /** A user's delete: unconditional. */
  public void remove(String name) {
    workers.deleteById(name);
    forgetWhatItSaid(name);
  }

  /**
   * The scheduler's: only if it is still offline and silent since {@code lastSeen}, so that an
   * agent heard from meanwhile keeps its worker.
   */
  public boolean removeIfSilentSince(String name, Instant lastSeen) {
    if (workers.deleteIfSilentSince(name, lastSeen) != 1) {
      return false;
    }
    forgetWhatItSaid(name);
    return true;
  }

  private void forgetWhatItSaid(String name) {
    agentTasks.deleteByWorker(name);
    workers.forgetTaskFailuresOf(name);
  }
}
