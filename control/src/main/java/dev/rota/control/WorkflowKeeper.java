package dev.rota.control;

import dev.rota.core.lifecycle.RunRule;
import dev.rota.scheduler.DaemonThreads;
import dev.rota.scheduler.SchedulerMissing;
import dev.rota.scheduler.settings.SchedulerSettings;
import dev.rota.store.VmRepository;
import dev.rota.store.VmRow;
import dev.rota.store.VmSetRepository;
import dev.rota.store.VmSetRow;
import dev.rota.workflows.vm.VmWorkflow;
import dev.rota.workflows.vmset.VmSetWorkflow;
import io.micronaut.context.event.ApplicationEventListener;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes sure the workflows the database says should run do: the scheduler's, every VM set's, and
 * every VM's but the stopped ones, whose last run ended with them. Its periodic look also leaves
 * out the VMs whose start is owed (the starter's or the sweep's to make); the restore at a host's
 * start does not, as their starter may have died. Temporal can lose them (a server started afresh,
 * a namespace made anew, an operator's terminate, a run failed by a bad deploy) while the database
 * keeps all they need to start again, so every host looks every {@link #schedulerEvery()} and
 * starts again what is missing. A start joins a run that is open (USE_EXISTING), so hosts that look
 * at once start nothing twice, and a restored workflow resumes from its stored state and adopts its
 * running task: nothing runs twice.
 *
 * <p>The scheduler is looked at by name, cheaply, each time. The VMs and sets are compared with
 * Temporal's list of running workflows every {@link #WORKFLOWS_EVERY}, and what two looks in a row
 * find missing is started again: the list lags the starts made just before it, and during a burst
 * one look took thousands of just-started workflows for lost. When the scheduler was missing
 * (whatever lost it likely lost the rest), what one look finds missing is started at once.
 */
@Singleton
public class WorkflowKeeper implements ApplicationEventListener<SchedulerMissing> {
  private static final Logger log = LoggerFactory.getLogger(WorkflowKeeper.class);
  static final Duration WORKFLOWS_EVERY = Duration.ofMinutes(1);
  private static final int PAGE = 500;

  private final ControlWorkflows workflows;
  private final List<TemporalNamespaceSetup> setups;
  private final VmRepository vms;
  private final VmSetRepository sets;
  private final dev.rota.store.WorkflowStartRepository starts;
  private final SchedulerSettings scheduler;
  private final Clock clock;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("workflow-keeper"));
  private final AtomicBoolean lookSoon = new AtomicBoolean();
  private volatile Instant schedulerRestartedAt;
  private volatile String schedulerRestartedWhy;
  private Instant workflowsLookedAt = Instant.EPOCH;

  /** The workflow ids the last periodic look found missing. */
  private Set<String> missingAtLastLook = Set.of();

  private final Instant since;

  private final AskedDeletions asked;

  public WorkflowKeeper(
      ControlWorkflows workflows,
      VmRepository vms,
      VmSetRepository sets,
      dev.rota.store.WorkflowStartRepository starts,
      SchedulerSettings scheduler,
      Clock clock,
      List<TemporalNamespaceSetup> setups,
      AskedDeletions asked) {
    this.asked = asked;
    this.starts = starts;
    this.setups = setups;
    this.workflows = workflows;
    this.vms = vms;
    this.sets = sets;
    this.scheduler = scheduler;
    this.clock = clock;
    this.since = clock.instant();
  }

  /** How often a host looks for the scheduler's workflow: a few of its intervals. */
  public Duration schedulerEvery() {
    return scheduler.interval().multipliedBy(3);
  }

  /** Looks every {@link #schedulerEvery()} from now on: what a host does once it serves. */
  public void keepEvery(Duration every) {
    timer.scheduleWithFixedDelay(
        this::lookSafely, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** A wake-up found no scheduler: look now. */
  @Override
  public void onApplicationEvent(SchedulerMissing missing) {
    lookSoon(missing.why());
  }

  /**
   * Looks now, in the background (a wake-up found no scheduler); looks already asked for are one.
   */
  public void lookSoon(String why) {
    if (lookSoon.compareAndSet(false, true)) {
      log.debug("looking for missing workflows now: {}", why);
      try {
        timer.execute(this::lookSafely);
      } catch (java.util.concurrent.RejectedExecutionException e) {
        lookSoon.set(false); // closing
      }
    }
  }

  @PreDestroy
  void close() {
    timer.shutdownNow();
  }

  private void lookSafely() {
    lookSoon.set(false);
    try {
      look();
    } catch (RuntimeException e) {
      log.debug("looking for missing workflows failed: {}", e.toString());
    }
  }

  /**
   * One look: the scheduler, then the VMs and sets when they are due or the scheduler was missing.
   */
  public void look() {
    boolean restarted = keepScheduler();
    Instant now = clock.instant();
    if (restarted || !now.isBefore(workflowsLookedAt.plus(WORKFLOWS_EVERY))) {
      workflowsLookedAt = now;
      int restored = restarted ? restoreUnless(runningIds(), true, id -> true) : restoreMissing();
      if (restored > 0) {
        log.warn("restored the workflows of {} VMs and sets that Temporal no longer ran", restored);
      }
    }
  }

  /** Starts the scheduler's workflow if it has no open run; true when it did. */
  public boolean keepScheduler() {
    if (workflows.schedulerRuns()) {
      return false;
    }
    for (TemporalNamespaceSetup setup : setups) {
      try {
        setup.ensure();
      } catch (RuntimeException e) {
        log.warn("could not set up the namespace again: {}", e.toString());
      }
    }
    var execution = workflows.startScheduler();
    schedulerRestartedAt = clock.instant();
    schedulerRestartedWhy =
        "the scheduler's workflow had no open run (Temporal lost it, or it was terminated or "
            + "failed); started it again as run "
            + execution.getRunId();
    log.warn(schedulerRestartedWhy);
    return true;
  }

  /**
   * The scheduler's health given when its last term began (null before the first), with what this
   * host did for it.
   */
  public SchedulerHealth schedulerHealth(Instant lastTermAt) {
    return SchedulerHealth.judge(
        lastTermAt, since, schedulerRestartedAt, schedulerRestartedWhy, scheduler, clock.instant());
  }

  /**
   * Gives every VM and set its workflow, joining any that is open: a host at start, whose Temporal
   * may have forgotten every workflow (dev mode's embedded server). Returns how many it made sure
   * of.
   */
  public int restoreAll() {
    return restoreUnless(Set.of(), false, id -> true);
  }

  /**
   * Starts the workflows of the VMs and sets that have a row and no running workflow in Temporal's
   * list, this look's and the last one's. The list is read before the rows: a workflow that ended
   * since deleted its row first, so it is not started again; one too new to be listed yet is
   * joined, not doubled. Returns how many it started.
   */
  public int restoreMissing() {
    return restoreMissingFrom(runningIds());
  }

  /**
   * {@link #restoreMissing()} with Temporal's list of running workflow ids given: starts what this
   * look and the one before both miss. A VM whose workflow start is owed is left to its starter, or
   * to the sweep on any host should that one die: a burst's VMs wait for their starts until they
   * run, and are not lost.
   */
  public synchronized int restoreMissingFrom(Set<String> running) {
    Set<String> missing = new HashSet<>();
    Set<String> before = missingAtLastLook;
    int restored =
        restoreUnless(
            running,
            true,
            id -> {
              missing.add(id);
              return before.contains(id);
            });
    missingAtLastLook = missing;
    return restored;
  }

  /**
   * Starts (joining any open run) the workflow of every set and VM whose workflow id is not in
   * {@code running} and that {@code restoreNow} accepts, but, when {@code leaveOwed}, of a VM whose
   * start is owed.
   */
  private int restoreUnless(
      Set<String> running, boolean leaveOwed, java.util.function.Predicate<String> restoreNow) {
    int[] count = {0};
    eachSet(
        set -> {
          String id = VmSetWorkflow.workflowId(set.name());
          if (!running.contains(id) && restoreNow.test(id)) {
            workflows.ensureSet(set.name(), set.replicas());
            count[0]++;
          }
        });
    eachVmPage(
        page -> {
          Set<String> owed = new HashSet<>();
          if (leaveOwed) {
            starts
                .findByVmIn(page.stream().map(VmRow::name).toList())
                .forEach(o -> owed.add(o.vm()));
          }
          List<VmRow> begunAnew = new ArrayList<>();
          for (VmRow vm : page) {
            String id = VmWorkflow.workflowId(vm.name());
            if (needsRun(vm)
                && !owed.contains(vm.name())
                && !running.contains(id)
                && restoreNow.test(id)) {
              workflows.startVm(vm, true);
              begunAnew.add(vm);
              count[0]++;
            }
          }
          asked.forget(
              begunAnew); // a request to delete them went with their runs: to be made again
        });
    return count[0];
  }

  /**
   * Whether the VM's workflow should have an open run ({@link RunRule#hasOpenRun}): not when its
   * last one ended with it (stopped), until a user's action begins the next.
   */
  private static boolean needsRun(VmRow vm) {
    // A time-to-live keeps the run open until it deletes the VM.
    return vm.state().hasOpenRun() || vm.spec().ttlSecondsAfterFinished() != null;
  }

  private Set<String> runningIds() {
    Set<String> ids = new HashSet<>();
    workflows
        .open(
            "(WorkflowType = 'VmWorkflow' OR WorkflowType = 'VmSetWorkflow') AND ExecutionStatus = 'Running'")
        .forEach(w -> ids.add(w.getWorkflowId()));
    return ids;
  }

  private void eachSet(Consumer<VmSetRow> each) {
    long after = 0;
    while (true) {
      List<VmSetRow> page = sets.page(after, PAGE);
      page.forEach(each);
      if (page.size() < PAGE) {
        return;
      }
      after = page.get(page.size() - 1).seq();
    }
  }

  private void eachVmPage(Consumer<List<VmRow>> each) {
    long after = 0;
    while (true) {
      List<VmRow> page = vms.page(after, null, null, null, PAGE);
      if (!page.isEmpty()) {
        each.accept(page);
      }
      if (page.size() < PAGE) {
        return;
      }
      after = page.get(page.size() - 1).seq();
    }
  }
}
