package dev.rota.agent.tasks;

import dev.rota.agentapi.AgentTaskState;
import dev.rota.agentapi.TaskSpec;
import dev.rota.agentapi.TaskView;
import java.time.Instant;
import java.util.function.Consumer;

/**
 * One task on this worker, as its runtime last reported it. Thread-safe: runtimes report from their
 * threads.
 */
public final class Task {
  static final String STARTING = AgentTaskState.STARTING.wireName();
  static final String RUNNING = AgentTaskState.RUNNING.wireName();
  static final String EXITED = AgentTaskState.EXITED.wireName();
  static final String FAILED = AgentTaskState.FAILED.wireName();

  public final String id;
  public final TaskSpec spec;
  private String state = STARTING;
  private Integer exitCode;
  private Instant startedAt;
  private Instant finishedAt;
  private String message;

  /** Hears of every change of state, with the task as it now is. */
  private final Consumer<TaskView> changes;

  /** Set when the controller removed it: how it then ends is what was asked for, not news. */
  private boolean removed;

  /**
   * Set when its agent stopped it at the fence: however it then ends, it failed for this reason.
   */
  private String fencedBecause;

  /**
   * Set when its agent stops it because its liveness check failed: however it then ends, it failed
   * for this reason.
   */
  private String failingBecause;

  /** Whether its readiness check passes; null when it has none. */
  private Boolean ready;

  private Instant readySince;

  /** What its readiness check last said when it failed. */
  private String readiness;

  /** Whether its readiness check has ever passed. */
  private boolean beenReady;

  /** The runtime's handle on it: a process, a scheduled future. */
  public volatile Object handle;

  public Task(String id, TaskSpec spec, Consumer<TaskView> changes) {
    this.id = id;
    this.spec = spec;
    this.changes = changes;
  }

  public synchronized void running(Instant at) {
    if (state.equals(STARTING)) {
      state = RUNNING;
      startedAt = at;
      message = null;
      tell();
    }
  }

  /**
   * How a task still starting is getting on (an image's fetch): its message, told when it changes.
   */
  public synchronized void progress(String what) {
    if (state.equals(STARTING) && !what.equals(message)) {
      message = what;
      tell();
    }
  }

  public synchronized void ended(Integer code, String why, Instant at) {
    if (state.equals(EXITED) || state.equals(FAILED)) {
      return;
    }
    if (fencedBecause != null || failingBecause != null) {
      exitCode = code;
      failed(fencedBecause != null ? fencedBecause : failingBecause, at);
      return;
    }
    state = EXITED;
    exitCode = code;
    message = why;
    finishedAt = at;
    tell();
  }

  public synchronized void failed(String why, Instant at) {
    if (state.equals(EXITED) || state.equals(FAILED)) {
      return;
    }
    state = FAILED;
    message = fencedBecause != null ? fencedBecause : failingBecause != null ? failingBecause : why;
    finishedAt = at;
    tell();
  }

  /** Whether its readiness check has passed at least once. */
  synchronized boolean beenReady() {
    return beenReady;
  }

  /** Its agent is stopping it because its liveness check failed, saying {@code why}. */
  synchronized void failing(String why) {
    failingBecause = why;
  }

  /**
   * What its readiness check says: ready (since {@code at}) or not, with {@code why} not; told when
   * it changes.
   */
  synchronized void readiness(boolean passes, String why, Instant at) {
    if (ended()
        || (Boolean.valueOf(passes).equals(ready) && java.util.Objects.equals(why, readiness))) {
      return;
    }
    if (!passes || !Boolean.TRUE.equals(ready)) {
      readySince = passes ? at : null;
    }
    ready = passes;
    beenReady |= passes;
    readiness = passes ? null : why;
    tell();
  }

  /** Its agent is stopping it at the fence, for {@code why}. */
  synchronized void fence(String why) {
    fencedBecause = why;
  }

  synchronized boolean fenced() {
    return fencedBecause != null;
  }

  synchronized String fencedBecause() {
    return fencedBecause;
  }

  synchronized void removed() {
    removed = true;
  }

  public synchronized boolean isRemoved() {
    return removed;
  }

  private void tell() {
    if (!removed) {
      changes.accept(view());
    }
  }

  public synchronized boolean ended() {
    return state.equals(EXITED) || state.equals(FAILED);
  }

  synchronized TaskView view() {
    java.util.Map<String, Integer> ports = null;
    if (!spec.portsOrNone().isEmpty()) {
      ports = new java.util.TreeMap<>();
      for (dev.rota.agentapi.PortSpec p : spec.portsOrNone()) {
        ports.put(p.name(), p.hostPort());
      }
    }
    return new TaskView(
        id,
        spec.vm(),
        state,
        exitCode,
        str(startedAt),
        str(finishedAt),
        message,
        ports,
        spec.submission(),
        ready != null || spec.checks() == null || spec.checks().readiness() == null
            ? ready
            : Boolean.FALSE,
        str(readySince),
        readiness);
  }

  private static String str(Instant t) {
    return t == null ? null : t.toString();
  }
}
