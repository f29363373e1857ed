package dev.rota.scheduler;

import dev.rota.scheduler.temporal.TemporalDeadlines;
import dev.rota.scheduler.temporal.WorkflowStubs;
import dev.rota.store.ClusterStatusRepository;
import dev.rota.store.VmRepository;
import dev.rota.workflows.cluster.ClusterWorkflow;
import io.micronaut.context.event.ApplicationEventPublisher;
import io.temporal.client.WorkflowNotFoundException;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Asks the scheduler for a term now, when there is new work for it. */
@Singleton
public class SchedulerWaker {
  private static final Logger log = LoggerFactory.getLogger(SchedulerWaker.class);

  /**
   * What the signal may take: a wake-up is best effort, and its caller (a report, a term) has work
   * to do.
   */
  static final java.time.Duration SIGNAL_DEADLINE = java.time.Duration.ofSeconds(5);

  private final WorkflowStubs workflows;
  private final ClusterStatusRepository status;
  private final ApplicationEventPublisher<SchedulerMissing> missing;
  private final TemporalDeadlines deadlines;
  private final VmRepository vms;

  public SchedulerWaker(
      WorkflowStubs workflows,
      ClusterStatusRepository status,
      ApplicationEventPublisher<SchedulerMissing> missing,
      TemporalDeadlines deadlines,
      VmRepository vms) {
    this.workflows = workflows;
    this.status = status;
    this.vms = vms;
    this.missing = missing;
    this.deadlines = deadlines;
  }

  /**
   * Best effort: if the signal is lost, the next term still comes within the interval. A wake-up
   * already pending (signalled, its term not yet begun) makes this one unnecessary.
   */
  public void wake(String reason) {
    try {
      if (status.claimWake(ClusterWorkflow.WORKFLOW_ID) == 0) {
        return;
      }
      deadlines.within(
          SIGNAL_DEADLINE,
          () -> {
            workflows.scheduler().wake(reason);
            return null;
          });
    } catch (WorkflowNotFoundException e) {
      // No scheduler to wake: Temporal lost it, or it was terminated. Start it again now, not at
      // the next look.
      release();
      missing.publishEvent(new SchedulerMissing("a wake-up found no scheduler"));
    } catch (RuntimeException e) {
      // Temporal away: the next wake-up tries again. A claim left behind would silence every
      // wake-up
      // until the next term, however long after Temporal is back that comes.
      release();
      log.debug("could not wake the scheduler ({}): {}", reason, e.toString());
    }
  }

  /**
   * Room was freed on a worker (a task ended, or was removed): a term now places the VMs that wait
   * for it, instead of at the end of an idle wait of up to {@code rota.scheduler.idle-interval}.
   * Nothing waits, no term.
   */
  public void roomFreed(String reason) {
    boolean waiting;
    try {
      waiting = vms.anyPending() > 0;
    } catch (RuntimeException e) {
      waiting = true; // the database away: the term will say so
    }
    if (waiting) {
      wake(reason);
    }
  }

  private void release() {
    try {
      status.clearWake(ClusterWorkflow.WORKFLOW_ID);
    } catch (RuntimeException e) {
      log.debug("could not release the wake-up's claim: {}", e.toString());
    }
  }
}
