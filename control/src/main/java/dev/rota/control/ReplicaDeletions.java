package dev.rota.control;

import dev.rota.scheduler.DaemonThreads;
import dev.rota.scheduler.SchedulerWaker;
import dev.rota.store.VmRow;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Deletes many replicas of a set at once, as the set's pass does when the set is deleted or scaled
 * down: their workflows are ended (each saying why, in the Temporal UI), then their tasks and the
 * logs they kept are removed, then their rows, in one transaction. One by one, each deletion is a
 * signal, a workflow task and a local activity in the replica's own workflow; together, the
 * replicas are gone from the API and their workers as soon as their workflows have been ended.
 *
 * <p>The replicas go a {@link #CHUNK} at a time, ordered by worker: while the Temporal server ends
 * one chunk's workflows, the chunk before has its tasks removed (a call to each of its few workers)
 * and its rows deleted, so that neither waits for the other.
 *
 * <p>A replica's workflow is ended first, so that nothing it does races the deletion: a task an
 * activity of it still starts afterwards, or one whose agent does not answer now, is a task no VM
 * holds, which the scheduler removes. A replica whose workflow was not open (its start still owed,
 * or its last run ended with it) or could not be ended now (Temporal away) is left to the caller,
 * to be deleted by a run of its own as a single VM is: a start owed and made meanwhile then joins
 * that run instead of beginning one for a VM that is gone. So is a replica that keeps something on
 * its worker (a persistent disk, saved memory), whose workflow waits for its worker to delete it.
 */
@Singleton
public class ReplicaDeletions {
  private final ControlWorkflows workflows;
  private final VmLeftovers leftovers;
  private final VmSubmissions submissions;
  private final SchedulerWaker scheduler;

  public ReplicaDeletions(
      ControlWorkflows workflows,
      VmLeftovers leftovers,
      VmSubmissions submissions,
      SchedulerWaker scheduler) {
    this.workflows = workflows;
    this.leftovers = leftovers;
    this.submissions = submissions;
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

  /** How many replicas' workflows are ended before their tasks and rows go. */
  static final int CHUNK = 100;

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
    long until = System.nanoTime() + PASS_BUDGET.toNanos();
    List<VmRow> ordered = new ArrayList<>(replicas);
    ordered.sort(Comparator.comparing(ReplicaDeletions::workerOf));
    List<VmRow> byTheirWorkflows = new ArrayList<>();
    int deleted = 0;
    int reached = 0;
    ExecutorService removing =
        Executors.newSingleThreadExecutor(DaemonThreads.numbered("replica-removal"));
    try {
      List<Future<?>> removals = new ArrayList<>();
      for (int from = 0; from < ordered.size(); from += CHUNK) {
        long left = until - System.nanoTime();
        if (left <= 0) {
          break;
        }
        List<VmRow> chunk = ordered.subList(from, Math.min(ordered.size(), from + CHUNK));
        Map<String, Boolean> ended =
            workflows.endVms(chunk.stream().map(VmRow::name).toList(), why, Duration.ofNanos(left));
        reached += ended.size();
        List<VmRow> closed = new ArrayList<>();
        for (VmRow replica : chunk) {
          Boolean open = ended.get(replica.name());
          if (Boolean.TRUE.equals(open)) {
            closed.add(replica);
          } else if (Boolean.FALSE.equals(open)) {
            byTheirWorkflows.add(replica);
          }
        }
        deleted += closed.size();
        if (!closed.isEmpty()) {
          removals.add(removing.submit(() -> remove(closed, why)));
        }
      }
      for (Future<?> removal : removals) {
        removal.get();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while deleting replicas", e);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r
          ? r
          : new IllegalStateException("deleting replicas", e.getCause());
    } finally {
      removing.shutdown();
    }
    int later = replicas.size() - reached;
    if (later > 0) {
      workflows.setChanged(set);
    }
    return new Outcome(deleted, byTheirWorkflows, later);
  }

  /** Where the replica's task is: replicas of one worker go together. */
  private static String workerOf(VmRow replica) {
    if (!replica.heldTasks().isEmpty()) {
      return replica.heldTasks().get(0).worker();
    }
    return replica.state().worker() == null ? "" : replica.state().worker();
  }

  /** The tasks, kept logs and rows of replicas whose workflows were ended. */
  private void remove(List<VmRow> closed, String why) {
    leftovers.removeAll(closed);
    List<VmRow> removed = submissions.removeAll(closed);
    if (!removed.isEmpty()) {
      scheduler.roomFreed(removed.size() + " replicas deleted: " + why);
    }
  }
}
