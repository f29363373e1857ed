package dev.rota.control;

import dev.rota.scheduler.SchedulerWaker;
import dev.rota.scheduler.term.AgentCalls;
import dev.rota.store.VmRow;
import dev.rota.workflows.vm.VmActivities.WorkerTask;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes many replicas of a set at once, as the set's pass does when the set is deleted or scaled
 * down: their workflows are ended (each saying why, in the Temporal UI), then their tasks and the
 * logs they kept are removed, then their rows, in one transaction. One by one, each deletion is a
 * signal, a workflow task and a local activity in the replica's own workflow; together, the
 * replicas are gone from the API and their workers as soon as their workflows have been ended.
 *
 * <p>The workflow is ended first, so that nothing it does races the deletion: a task an activity of
 * it still starts afterwards, or one whose agent does not answer now, is a task no VM holds, which
 * the scheduler removes. A replica whose workflow was not open (its start still owed, or its last
 * run ended with it) or could not be ended now (Temporal away) is left to the caller, to be deleted
 * by a run of its own as a single VM is: a start owed and made meanwhile then joins that run
 * instead of beginning one for a VM that is gone. So is a replica that keeps something on its
 * worker (a persistent disk, saved memory), whose workflow waits for its worker to delete it.
 */
@Singleton
public class ReplicaDeletions {
  private static final Logger log = LoggerFactory.getLogger(ReplicaDeletions.class);

  private final ControlWorkflows workflows;
  private final VmLeftovers leftovers;
  private final VmSubmissions submissions;
  private final ExecutorService agentCalls;
  private final SchedulerWaker scheduler;

  public ReplicaDeletions(
      ControlWorkflows workflows,
      VmLeftovers leftovers,
      VmSubmissions submissions,
      @Named(AgentCalls.EXECUTOR) ExecutorService agentCalls,
      SchedulerWaker scheduler) {
    this.workflows = workflows;
    this.leftovers = leftovers;
    this.submissions = submissions;
    this.agentCalls = agentCalls;
    this.scheduler = scheduler;
  }

  /** Whether the replica can be deleted with others here: it keeps nothing on a worker. */
  public static boolean together(VmRow replica) {
    return replica.notes().diskOn() == null;
  }

  /**
   * How long a pass goes on ending workflows: well within its activity's timeout, whatever the
   * Temporal server's pace. What it did not reach waits for the next pass, which comes at once.
   */
  static final Duration PASS_BUDGET = Duration.ofSeconds(10);

  /**
   * What a pass's deletion did.
   *
   * @param deleted how many replicas it deleted
   * @param byTheirWorkflows those whose workflow was not open (its start still owed, or its last
   *     run ended) or could not be ended: to be deleted by a run of their own, as a single VM is
   * @param later how many it did not reach within {@link #PASS_BUDGET}
   */
  public record Outcome(int deleted, List<VmRow> byTheirWorkflows, int later) {}

  /**
   * Deletes those of {@code replicas} of {@code set} (each {@link #together}) whose open workflow
   * it ends, saying {@code why}, as many as {@link #PASS_BUDGET} allows; with some left for later,
   * the set's workflow is told to pass again at once rather than after its usual wait.
   */
  public Outcome delete(String set, List<VmRow> replicas, String why) {
    if (replicas.isEmpty()) {
      return new Outcome(0, List.of(), 0);
    }
    Map<String, Boolean> ended =
        workflows.endVms(replicas.stream().map(VmRow::name).toList(), why, PASS_BUDGET);
    List<VmRow> closed =
        replicas.stream().filter(r -> Boolean.TRUE.equals(ended.get(r.name()))).toList();
    List<Future<?>> removals =
        closed.stream().<Future<?>>map(r -> agentCalls.submit(() -> removeLeftovers(r))).toList();
    for (Future<?> removal : removals) {
      try {
        removal.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while deleting replicas", e);
      } catch (ExecutionException e) {
        log.debug("a replica's leftovers were not all removed: {}", e.getCause().toString());
      }
    }
    List<VmRow> removed = submissions.removeAll(closed);
    if (!removed.isEmpty()) {
      scheduler.roomFreed(removed.size() + " replicas deleted: " + why);
    }
    int later = replicas.size() - ended.size();
    if (later > 0) {
      workflows.setChanged(set);
    }
    return new Outcome(
        closed.size(),
        replicas.stream().filter(r -> Boolean.FALSE.equals(ended.get(r.name()))).toList(),
        later);
  }

  /** Its tasks and kept logs; what an agent does not answer for now is left to the scheduler. */
  private void removeLeftovers(VmRow replica) {
    leftovers.removeOrLeave(
        replica.name(),
        replica.heldTasks().stream()
            .map(held -> new WorkerTask(held.worker(), held.taskId(), replica.seq()))
            .toList());
    try {
      leftovers.forgetLogs(replica);
    } catch (RuntimeException e) {
      log.debug("deleting {}: its kept logs stay for now: {}", replica.name(), e.toString());
    }
  }
}
