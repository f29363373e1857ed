package dev.rota.agent.link;

import dev.rota.agentapi.TaskView;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the controller of task state changes as they happen ({@code PUT /v1/workers/{name}/tasks}),
 * so that a VM is running as soon as its task is, not when the scheduler next probes. Changes that
 * come close together go in one report; the latest state of a task replaces an unsent one. A report
 * that cannot be delivered is tried again, backing off up to the heartbeat interval; the
 * scheduler's probes remain the truth, so nothing is lost if it never arrives.
 */
public final class TaskReporter {
  private static final Logger log = LoggerFactory.getLogger(TaskReporter.class);

  /** Long enough to gather a burst of starts into one request, short beside a term. */
  private static final long GATHER_MILLIS = 20;

  private static final int MAX_PER_REPORT = 1000;

  private final ControllerClient controller;
  private final String path;
  private final ScheduledExecutorService timers;
  private final Duration maxBackoff;
  private final Map<String, TaskView> unsent = new ConcurrentHashMap<>();

  /**
   * The states a report under way carries: a report that overlaps it leaves those tasks out, to
   * send their newer states once it is answered. Sent again, each was the same work for the
   * controller's report writer, at a burst's height a report in two that did nothing; and a newer
   * state sent beside an older one may be written first and then undone by it (a task's readiness,
   * which no probe corrects, read not ready again).
   */
  private final Map<String, TaskView> sending = new ConcurrentHashMap<>();

  private final AtomicBoolean due = new AtomicBoolean();
  private volatile boolean started;
  private volatile boolean closed;

  /**
   * Sends run on the shared timer threads, at most one per change or retry; two may overlap, the
   * later leaving out the tasks the earlier carries ({@link #sending}).
   */
  private final java.util.concurrent.atomic.AtomicInteger failures =
      new java.util.concurrent.atomic.AtomicInteger();

  public TaskReporter(
      ControllerClient controller,
      String workerName,
      ScheduledExecutorService timers,
      Duration maxBackoff) {
    this.controller = controller;
    this.path = "/v1/workers/" + workerName + "/tasks";
    this.timers = timers;
    this.maxBackoff = maxBackoff;
  }

  /** A task's new state; called from runtimes' threads. */
  public void changed(TaskView task) {
    unsent.put(task.id(), task);
    if (started) {
      sendSoon(GATHER_MILLIS);
    }
  }

  /** From now on reports are sent; changes seen before (tasks found again at start-up) go first. */
  public void start() {
    started = true;
    if (!unsent.isEmpty()) {
      sendSoon(0);
    }
  }

  public void close() {
    closed = true;
  }

  private void sendSoon(long delayMillis) {
    if (!closed && due.compareAndSet(false, true)) {
      timers.schedule(this::send, delayMillis, TimeUnit.MILLISECONDS);
    }
  }

  private void send() {
    due.set(false);
    if (closed) {
      return;
    }
    List<TaskView> report =
        unsent.values().stream()
            .filter(t -> !sending.containsKey(t.id()))
            .limit(MAX_PER_REPORT)
            .toList();
    if (report.isEmpty()) {
      return;
    }
    report.forEach(t -> sending.put(t.id(), t));
    int status;
    try {
      status = controller.send("PUT", path, Map.of("tasks", report));
    } catch (IOException e) {
      status = -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    } finally {
      report.forEach(t -> sending.remove(t.id(), t));
    }
    // 404: the controller does not know this worker yet; the heartbeat registers it, then this is
    // tried again.
    boolean retry = status == -1 || status == 404 || status == 429 || status >= 500;
    if (!retry) {
      // Sent, or refused for good (which the probes make up for): either way these are done with,
      // unless a newer state came meanwhile.
      report.forEach(t -> unsent.remove(t.id(), t));
      if (status != 204) {
        log.warn(
            "the controller refused a task report ({}); the scheduler's probes will see these tasks",
            status);
      }
      failures.set(0);
      if (!unsent.isEmpty()) {
        sendSoon(0);
      }
      return;
    }
    int failed = failures.incrementAndGet();
    sendSoon(Math.min(maxBackoff.toMillis(), 100L << Math.min(failed, 10)));
  }
}
