package dev.rota.scheduler.term;

import dev.rota.core.scheduling.ActionRetries;
import dev.rota.store.AgentAddress;
import dev.rota.store.OutboxRepository;
import dev.rota.store.OutboxRow;
import dev.rota.store.WorkerProbeRow;
import dev.rota.store.WorkerRepository;
import dev.rota.workflows.cluster.ApplyResult;
import jakarta.inject.Singleton;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * The apply step: drains the outbox of term actions in two passes, the calls to agents ({@link
 * AgentCallPass}) and then the news for VMs' workflows ({@link NewsPass}). An action done, or one
 * that can never succeed, leaves the outbox; one not carried out stays for the next term.
 */
@Singleton
public class ActionApplier {
  static final int BATCH = 500;

  /** How long one apply pass may go on taking further batches. */
  static final java.time.Duration PASS_BUDGET = java.time.Duration.ofSeconds(10);

  private final OutboxRepository actions;
  private final WorkerRepository workers;
  private final AgentCallPass agentCalls;
  private final NewsPass news;

  public ActionApplier(
      OutboxRepository actions, WorkerRepository workers, AgentCallPass agentCalls, NewsPass news) {
    this.actions = actions;
    this.workers = workers;
    this.agentCalls = agentCalls;
    this.news = news;
  }

  /**
   * One pass over the outbox, oldest first, in batches: the calls to agents, then the news for VMs'
   * workflows. Each action is tried once, so one an agent did not take waits for the next term
   * instead of being retried at once. The pass stops taking further batches when it has taken
   * {@link #PASS_BUDGET}, leaving the rest for the next term, well inside the activity's timeout.
   * Calls go first: taken in plain id order, a term's news ahead of the next term's starts held
   * them back (with many workers, a term could tell every VM its placing and start none).
   */
  public ApplyResult apply() {
    Map<String, AgentAddress> endpoints = new HashMap<>();
    for (WorkerProbeRow w : workers.probeRows()) {
      endpoints.put(w.name(), w.agent());
    }
    OutboxPasses.Tally tally = new OutboxPasses.Tally();
    long deadline = System.nanoTime() + PASS_BUDGET.toNanos();
    Set<String> startedNow = ConcurrentHashMap.newKeySet();
    inBatches(
        actions::agentCallsAfter,
        deadline,
        batch -> agentCalls.callAgents(batch, endpoints, deadline, startedNow, tally));
    inBatches(actions::newsAfter, deadline, batch -> news.tell(batch, startedNow, tally));
    // An action that failed this often (news for a VM whose workflow is missing) waits for the next
    // interval's term rather than bringing terms every second.
    return new ApplyResult(
        tally.started.get(),
        tally.removed.get(),
        tally.notified.get(),
        tally.failed.get(),
        actions.pendingTriedFewerThan(ActionRetries.MAX_ATTEMPTS));
  }

  /**
   * Takes {@code next}'s actions batch by batch until none are left or the deadline passed; the
   * first batch always.
   */
  private static void inBatches(
      BiFunction<Long, Integer, List<OutboxRow>> next,
      long deadline,
      Consumer<List<OutboxRow>> apply) {
    List<OutboxRow> batch = next.apply(0L, BATCH);
    while (!batch.isEmpty()) {
      apply.accept(batch);
      if (batch.size() < BATCH || System.nanoTime() > deadline) {
        return;
      }
      batch = next.apply(batch.get(batch.size() - 1).id(), BATCH);
    }
  }
}
