package dev.rota.control;

import dev.rota.scheduler.term.VmNotifier;
import dev.rota.store.OutboxRepository;
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
 * no longer (lost by Temporal) gets it from its row before the action is asked again.
 */
@Singleton
public class VmActions {
  private static final Logger log = LoggerFactory.getLogger(VmActions.class);

  private final ControlWorkflows workflows;
  private final VmWorkflowStarter starter;
  private final WorkflowKeeper keeper;
  private final VmNotifier notifier;
  private final OutboxRepository outbox;

  public VmActions(
      ControlWorkflows workflows,
      VmWorkflowStarter starter,
      WorkflowKeeper keeper,
      VmNotifier notifier,
      OutboxRepository outbox) {
    this.workflows = workflows;
    this.starter = starter;
    this.keeper = keeper;
    this.notifier = notifier;
    this.outbox = outbox;
  }

  /**
   * Carries the action to the VM's workflow ({@link ControlWorkflows#act}): {@link Refused} if the
   * workflow says no, {@link NotAnswered} if Temporal does not take it in time.
   */
  public void act(String vmName, Function<VmWorkflow, Functions.Func<String>> action) {
    catchUp(vmName);
    if (workflows.act(vmName, action)) {
      return;
    }
    // Owed (submitted a moment ago, or the start under way here has made it meanwhile), or lost by
    // Temporal (a server started afresh, a terminate): either way, from its row.
    if (!starter.startIfOwed(vmName)) {
      keeper.restoreVm(vmName);
    }
    if (!workflows.act(vmName, action)) {
      throw new NotAnswered(
          "VM '"
              + vmName
              + "' has no running workflow and none could be started; try again shortly");
    }
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
