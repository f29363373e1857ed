package dev.rota.scheduler.term;

import jakarta.inject.Singleton;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The outbox's news an agent's report is telling VMs' workflows at this moment, from when its
 * commit made them visible until their removal from the outbox has committed. The scheduler's apply
 * pass leaves them alone meanwhile: told twice, a workflow ignores the second, but it still costs a
 * signal and a workflow task (a third of the signals of a burst went so). Held in this process
 * only: should it die, the outbox still has them, and the next pass tells them.
 */
@Singleton
public class NewsBeingTold {
  private final Set<Long> ids = ConcurrentHashMap.newKeySet();

  void hold(Collection<Long> outboxIds) {
    ids.addAll(outboxIds);
  }

  void release(Collection<Long> outboxIds) {
    ids.removeAll(outboxIds);
  }

  boolean held(long outboxId) {
    return ids.contains(outboxId);
  }
}
