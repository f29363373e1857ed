package dev.rota.scheduler.term;

import dev.rota.core.lifecycle.RunRule;
import dev.rota.core.model.TaskEventType;
import dev.rota.core.model.VmStatus;
import dev.rota.core.model.WireName;
import dev.rota.scheduler.temporal.TemporalDeadlines;
import dev.rota.scheduler.temporal.WorkflowStubs;
import dev.rota.store.Columns;
import dev.rota.store.OutboxRepository;
import dev.rota.store.OutboxRow;
import dev.rota.store.VmProgress;
import dev.rota.store.VmRepository;
import dev.rota.store.WorkflowStartRepository;
import dev.rota.store.WorkflowStartRow;
import dev.rota.workflows.vm.TaskEvent;
import dev.rota.workflows.vm.VmWorkflow;
import io.temporal.client.WorkflowNotFoundException;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Tells a VM's workflow a task event from the outbox, after the VM's earlier events still there:
 * the workflow applies an event only after those before it (a new copy's start heard before the
 * move that made it would be an event of a generation it does not know yet, and lost), and events
 * are written by more than one writer (the term, agents' reports) and carried by more than one
 * thread.
 */
@Singleton
public class VmNotifier {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(VmNotifier.class);

  /**
   * What one signal may take: past it the news stays in the outbox for the next pass. Without it
   * the SDK retries an unreachable server for a minute, and a term telling its news while Temporal
   * was away ran on that long after Temporal was back, ahead of the next term.
   */
  static final java.time.Duration SIGNAL_DEADLINE = java.time.Duration.ofSeconds(5);

  private final WorkflowStubs workflows;
  private final VmRepository vms;
  private final OutboxRepository outbox;
  private final WorkflowStartRepository starts;
  private final TemporalDeadlines deadlines;

  public VmNotifier(
      WorkflowStubs workflows,
      VmRepository vms,
      OutboxRepository outbox,
      WorkflowStartRepository starts,
      TemporalDeadlines deadlines) {
    this.starts = starts;
    this.workflows = workflows;
    this.vms = vms;
    this.outbox = outbox;
    this.deadlines = deadlines;
  }

  /**
   * Signals the event with the VM's earlier ones still in the outbox, oldest first, in one signal;
   * a VM that is gone, or was submitted again since, has nobody left to tell. Returns the outbox
   * ids done with (the event's and the earlier ones'), for the caller to take out with others in
   * one statement. Throws when the workflow could not be told, so that the events stay in the
   * outbox: also when the VM exists but its workflow does not yet (being started, or being restored
   * after Temporal lost it).
   */
  public List<Long> notify(OutboxRow news) {
    VmProgress row = vms.progressOf(news.vm()).orElse(null);
    if (row == null || news.vmSeq() == null || news.vmSeq() != row.seq()) {
      return List.of(news.id());
    }
    if (row.workflowOwed()) {
      // Not asked of Temporal: its start hands the workflow the row, and the news after it stays
      // here.
      throw new WorkflowNotStartedYet(news.vm());
    }
    // The news and the VM's earlier news still in the outbox, in one read. Without the news itself,
    // its workflow's start took it along (the start hands over the news the row shows) after this
    // pass read it: telling it again would change nothing, and cost a signal.
    List<OutboxRow> upTo = outbox.eventsUpTo(news.vm(), news.id());
    if (upTo.isEmpty() || upTo.get(upTo.size() - 1).id() != news.id()) {
      return List.of();
    }
    List<OutboxRow> earlier = upTo.subList(0, upTo.size() - 1);
    List<TaskEvent> told = new ArrayList<>();
    for (OutboxRow e : earlier) {
      if (e.vmSeq() != null && e.vmSeq() == row.seq()) {
        told.add(event(e, false));
      }
    }
    // A start the agent's report already wrote to the row (reportedRunning): the row's newest
    // event, with the status it left. Its event id only grows, so the workflow's record of it would
    // change nothing.
    boolean recorded =
        TaskEventType.STARTED.wireName().equals(news.event())
            && row.taskEventId() == news.id()
            && VmStatus.RUNNING.wireName().equals(row.status());
    told.add(event(news, recorded));
    VmWorkflow workflow = workflows.vm(news.vm());
    try {
      deadlines.within(
          SIGNAL_DEADLINE,
          () -> {
            if (told.size() == 1) {
              workflow.taskEvent(told.get(0));
            } else {
              workflow.taskEvents(told);
            }
            return null;
          });
    } catch (WorkflowNotFoundException e) {
      if (!RunRule.endedForGood(
          WireName.parse(VmStatus.class, row.status()).orElse(VmStatus.PENDING), false)) {
        throw new IllegalStateException("VM " + news.vm() + " has no open workflow to tell yet", e);
      }
      // Its last run ended with it (stopped, failed for good), and would have ignored the news:
      // the next run begins from the row.
    }
    List<Long> done = new ArrayList<>();
    earlier.forEach(e -> done.add(e.id()));
    done.add(news.id());
    return done;
  }

  /**
   * The news, of those given, whose VM's workflow is still owed its start for that submission, in
   * one read: {@link #notify} would find each so and tell nothing, a statement each. A burst's
   * reports bring such news for nearly every VM, since its workflow starts once its burst has run.
   * None when the store cannot say: each is then asked on its own.
   */
  public Set<Long> waitingForTheirStart(List<OutboxRow> news) {
    if (news.isEmpty()) {
      return Set.of();
    }
    Map<String, Long> owedSeq = new HashMap<>();
    try {
      for (WorkflowStartRow owed :
          starts.findByVmIn(news.stream().map(OutboxRow::vm).distinct().toList())) {
        owedSeq.put(owed.vm(), owed.vmSeq());
      }
    } catch (RuntimeException e) {
      log.debug("could not read which workflow starts are owed: {}", e.toString());
      return Set.of();
    }
    Set<Long> waiting = new HashSet<>();
    for (OutboxRow n : news) {
      Long seq = owedSeq.get(n.vm());
      if (seq != null && seq.equals(n.vmSeq())) {
        waiting.add(n.id());
      }
    }
    return waiting;
  }

  /** The VM's workflow is owed its start ({@code VmWorkflowStarter}): its news waits. */
  public static final class WorkflowNotStartedYet extends IllegalStateException {
    WorkflowNotStartedYet(String vm) {
      super("VM " + vm + "'s workflow is still to be started");
    }
  }

  private static TaskEvent event(OutboxRow news, boolean recorded) {
    return new TaskEvent(
        news.id(),
        news.taskId(),
        news.worker(),
        news.event(),
        news.exitCode(),
        news.detail(),
        Columns.millis(news.createdAt()),
        Columns.millis(news.startedAt()),
        recorded);
  }
}
