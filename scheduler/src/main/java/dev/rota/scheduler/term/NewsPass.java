package dev.rota.scheduler.term;

import dev.rota.core.model.TaskEventType;
import dev.rota.core.model.WireName;
import dev.rota.core.scheduling.ActionRetries;
import dev.rota.scheduler.settings.WorkerSettings;
import dev.rota.scheduler.term.OutboxPasses.Tally;
import dev.rota.store.OutboxRepository;
import dev.rota.store.OutboxRow;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The apply step's second pass: the outbox's news for VMs' workflows, one signal per VM carrying
 * its news in order. News not told stays for the next pass (a workflow applies each once).
 */
@Singleton
public class NewsPass {
  private static final Logger log = LoggerFactory.getLogger(NewsPass.class);

  private final OutboxRepository actions;
  private final VmNotifier notifier;
  private final NewsBeingTold beingTold;
  private final ExecutorService calls;
  private final WorkerSettings workerSettings;
  private final Clock clock;

  public NewsPass(
      OutboxRepository actions,
      VmNotifier notifier,
      NewsBeingTold beingTold,
      @Named(AgentCalls.EXECUTOR) ExecutorService calls,
      WorkerSettings workerSettings,
      Clock clock) {
    this.actions = actions;
    this.notifier = notifier;
    this.beingTold = beingTold;
    this.calls = calls;
    this.workerSettings = workerSettings;
    this.clock = clock;
  }

  /**
   * One signal per VM: its newest news, with which the notifier sends the VM's earlier news too.
   * The news of a task placed to be started waits for what the agent says of it, to go with that in
   * one signal, for as long as the probe interval: the agent's report of the start, or else the
   * term's probe of the agent, tells the next state within it. After that the VM hears of its
   * placing alone (a VM that takes long to boot). News an agent's report is telling at this moment
   * is left to it ({@link NewsBeingTold}).
   */
  void tell(List<OutboxRow> batch, Set<String> startedNow, Tally tally) {
    Instant waitedEnough = clock.instant().minus(workerSettings.probeInterval());
    Map<String, List<OutboxRow>> newsByVm = new LinkedHashMap<>();
    for (OutboxRow a : batch) {
      newsByVm.computeIfAbsent(a.vm(), vm -> new ArrayList<>()).add(a);
    }
    java.util.Queue<Long> done = new java.util.concurrent.ConcurrentLinkedQueue<>();
    List<Future<?>> notifying = new ArrayList<>();
    // Not attempts: their starts hand the workflows the rows, and the pass after tells what
    // follows.
    Set<Long> waiting =
        notifier.waitingForTheirStart(
            newsByVm.values().stream().map(news -> news.get(news.size() - 1)).toList());
    for (List<OutboxRow> news : newsByVm.values()) {
      OutboxRow newest = news.get(news.size() - 1);
      if (waiting.contains(newest.id())
          || startedNow.contains(newest.taskId())
          || beingTold.held(newest.id())
          || (ofAStart(newest) && newest.createdAt().isAfter(waitedEnough))) {
        continue;
      }
      notifying.add(
          calls.submit(
              () -> {
                try {
                  done.addAll(notifier.notify(newest));
                } catch (VmNotifier.WorkflowNotStartedYet e) {
                  return; // not an attempt: its start hands the workflow the row, and the pass
                  // after tells what follows
                } catch (RuntimeException e) {
                  // Left in the outbox: the next pass tells the workflow (at least once; it applies
                  // it once).
                  log.debug("could not tell VM {}'s workflow: {}", newest.vm(), e.toString());
                  tally.failed.incrementAndGet();
                  if (newest.attempts() + 1 == ActionRetries.MAX_ATTEMPTS) {
                    log.warn(
                        "VM {} has not been told of task {} ({}) after {} attempts, and will be: {}",
                        newest.vm(),
                        newest.taskId(),
                        newest.event(),
                        ActionRetries.MAX_ATTEMPTS,
                        e.getMessage());
                  }
                  news.forEach(
                      a ->
                          actions.triedOnce(
                              a.id())); // never dropped (ActionRetries); its detail is the
                  // event's message
                  return;
                }
                tally.notified.incrementAndGet();
              }));
    }
    OutboxPasses.awaitAll(notifying);
    OutboxPasses.takeOut(actions, done);
  }

  /**
   * Whether the news is of a task placed with a start to carry out (placed, moved, failed over).
   */
  private static boolean ofAStart(OutboxRow news) {
    return WireName.parse(TaskEventType.class, news.event())
        .filter(TaskEventType::places)
        .isPresent();
  }
}
