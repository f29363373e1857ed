package dev.rota.control;

import dev.rota.scheduler.term.VmNotifier;
import dev.rota.store.OutboxRepository;
import dev.rota.store.VmRepository;
import dev.rota.store.VmRow;
import dev.rota.workflows.vm.VmWorkflow;
import io.temporal.workflow.Functions;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A user's action on a VM (stop, start, restart), judged by the VM's workflow as the user sees the
 * VM: its news is told first, and a VM whose workflow is not there yet (submitted a moment ago) or
 * no longer (its last run ended with the VM, or Temporal lost it) gets a run begun from its row
 * with the action.
 */
@Singleton
public class VmActions {
  private static final Logger log = LoggerFactory.getLogger(VmActions.class);

  private final ControlWorkflows workflows;
  private final VmWorkflowStarter starter;
  private final VmRepository vms;
  private final VmNotifier notifier;
  private final OutboxRepository outbox;

  public VmActions(
      ControlWorkflows workflows,
      VmWorkflowStarter starter,
      VmRepository vms,
      VmNotifier notifier,
      OutboxRepository outbox) {
    this.workflows = workflows;
    this.starter = starter;
    this.vms = vms;
    this.notifier = notifier;
    this.outbox = outbox;
  }

  /**
   * Carries the action to the VM's workflow ({@link ControlWorkflows#act}): {@link Refused} if the
   * workflow says no, {@link NotAnswered} if Temporal does not take it in time.
   */
  public void act(String vmName, Function<VmWorkflow, Functions.Func<String>> action) {
    catchUp(vmName);
    if (workflows.act(vmName, action)
        || (starter.startIfOwed(vmName) && workflows.act(vmName, action))) {
      return;
    }
    // No open run: the last ended with the VM (stopped, failed for good), or Temporal lost it. The
    // next begins from the row, with the action in its first task.
    VmRow row = vms.findById(vmName).orElseThrow(() -> new NotFound("VM", vmName));
    workflows.actWithStart(row, action);
  }

  /**
   * Tells the VM's workflow the news still in the outbox before it judges a user's action: the row
   * the user read (an agent's report of a start writes it at once) may be ahead of the workflow,
   * which would otherwise refuse, say, a restart of the VM shown running as "pending". Best effort:
   * news not told now is told by its report's thread or the next term, and a workflow applies each
   * event once.
   */
  private void catchUp(String vmName) {
    try {
      outbox
          .newestNews(vmName)
          .ifPresent(
              news -> {
                List<Long> told = notifier.notify(news);
                if (!told.isEmpty()) {
                  outbox.doneAll(told);
                }
              });
    } catch (RuntimeException e) {
      log.debug("could not tell VM {}'s workflow its news first: {}", vmName, e.toString());
    }
  }
}
