package dev.rota.host.temporal;

import dev.rota.scheduler.Heartbeats;
import dev.rota.workflows.RotaWorkflows;
import dev.rota.workflows.TaskQueues;
import dev.rota.workflows.cluster.ClusterActivities;
import dev.rota.workflows.schedule.ScheduledVmActivities;
import dev.rota.workflows.vm.VmActivities;
import dev.rota.workflows.vmset.VmSetActivities;
import io.temporal.client.WorkflowClient;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.worker.WorkerOptions;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** This host's Temporal worker, and the start of the one cluster workflow. */
@Singleton
public class TemporalWorkers {
  private static final Logger log = LoggerFactory.getLogger(TemporalWorkers.class);

  private final WorkflowClient client;
  private final TemporalSettings temporal;
  private final ClusterActivities clusterActivities;
  private final VmActivities vmActivities;
  private final VmSetActivities vmSetActivities;
  private final ScheduledVmActivities scheduledVmActivities;

  /**
   * The scheduler's factory caches the one cluster run, and the run it continues as (the old one
   * may still be finishing its last task).
   */
  private static final int SCHEDULER_CACHE = 2;

  private static final int MIN_WORKFLOW_THREADS = 16;
  private static final Duration DEADLOCK_DETECTION = Duration.ofSeconds(5);

  private WorkerFactory controlFactory;
  private WorkerFactory schedulerFactory;

  /**
   * Factories replaced by {@link #renewPollers()}, finishing the tasks they had when they stopped
   * polling.
   */
  private final List<WorkerFactory> retiring = new ArrayList<>();

  public TemporalWorkers(
      WorkflowClient client,
      TemporalSettings temporal,
      ClusterActivities clusterActivities,
      VmActivities vmActivities,
      VmSetActivities vmSetActivities,
      ScheduledVmActivities scheduledVmActivities) {
    this.client = client;
    this.temporal = temporal;
    this.clusterActivities = clusterActivities;
    this.vmActivities = vmActivities;
    this.vmSetActivities = vmSetActivities;
    this.scheduledVmActivities = scheduledVmActivities;
  }

  public synchronized void start() {
    build();
    controlFactory.start();
    schedulerFactory.start();
  }

  /**
   * Gives this host new pollers, for Temporal has just answered again after an outage. The SDK's
   * pollers back off on every failed poll, doubling up to a minute, and nothing outside the SDK can
   * shorten that: they would go on waiting well after Temporal is back, and no term would run
   * meanwhile. New factories poll at once; the old ones stop polling and finish the tasks they
   * hold.
   */
  public synchronized void renewPollers() {
    if (controlFactory == null) {
      return;
    }
    List<WorkerFactory> old = List.of(schedulerFactory, controlFactory);
    start();
    retiring.removeIf(WorkerFactory::isTerminated);
    for (WorkerFactory factory : old) {
      factory.shutdown();
      retiring.add(factory);
    }
  }

  private void build() {
    // A workflow task first waits for the host that ran that workflow last; when that host has
    // died, every one of its workflows (the scheduler's among them) waits this long before another
    // host takes it.
    WorkerOptions sticky =
        WorkerOptions.newBuilder()
            .setStickyQueueScheduleToStartTimeout(temporal.stickyTimeout())
            // The SDK fails a workflow task whose workflow thread has not yielded for 1 s, as a
            // deadlock. On a host whose cores are all taken, replaying a long history can be kept
            // off a core that long, and under heavy load the scheduler's task failed so time after
            // time and no term ran. Rota's workflow code never blocks; below the 10 s workflow task
            // timeout.
            .setDefaultDeadlockDetectionTimeout(DEADLOCK_DETECTION.toMillis())
            // The SDK sends an activity's heartbeats at most every 80% of its heartbeat timeout: 4
            // of the term's 5 s, so a beat held up 1 s by a busy host had the term given to another
            // attempt while it still ran (two terms at once under heavy load). Every second instead
            // leaves 4 s of slack.
            .setMaxHeartbeatThrottleInterval(Heartbeats.EVERY)
            .build();
    controlFactory = factory(temporal.workflowCacheSize());
    WorkerOptions control =
        WorkerOptions.newBuilder(sticky)
            .setMaxConcurrentWorkflowTaskExecutionSize(temporal.workflowTaskSlotsOrDefault())
            .build();
    RotaWorkflows.registerControl(
        controlFactory.newWorker(TaskQueues.CONTROL, control),
        clusterActivities,
        vmActivities,
        vmSetActivities,
        scheduledVmActivities);
    // Its own factory: its own pollers, task slots and cache, so that neither a backlog of VM
    // workflow
    // tasks nor their turnover in the cache can delay or evict the scheduler.
    schedulerFactory = factory(SCHEDULER_CACHE);
    RotaWorkflows.registerScheduler(
        schedulerFactory.newWorker(TaskQueues.SCHEDULER, sticky), clusterActivities);
  }

  private WorkerFactory factory(int cacheSize) {
    return WorkerFactory.newInstance(
        client,
        WorkerFactoryOptions.newBuilder()
            .setUsingVirtualWorkflowThreads(temporal.virtualWorkflowThreads())
            .setWorkflowCacheSize(cacheSize)
            // A cached workflow holds its thread: with fewer threads than the cache it cannot fill.
            // A few more for a small cache, whose workflow may run a handler on a thread of its
            // own.
            .setMaxWorkflowThreadCount(Math.max(cacheSize, MIN_WORKFLOW_THREADS))
            .build());
  }

  /** Stops polling and lets running tasks finish, up to the grace period. */
  public synchronized void shutdown(Duration grace) {
    if (controlFactory == null) {
      return;
    }
    controlFactory.shutdown();
    schedulerFactory.shutdown();
    long deadline = System.nanoTime() + grace.toNanos();
    List<WorkerFactory> all = new ArrayList<>(List.of(schedulerFactory, controlFactory));
    all.addAll(retiring);
    for (WorkerFactory factory : all) {
      factory.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      if (!factory.isTerminated()) {
        log.warn("Temporal worker did not drain within {}; stopping it now", grace);
        factory.shutdownNow();
      }
    }
    controlFactory = null;
    schedulerFactory = null;
    retiring.clear();
  }
}
