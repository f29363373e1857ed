package dev.rota.scheduler.term;

import dev.rota.agentapi.LogChunk;
import dev.rota.agentapi.TaskId;
import dev.rota.agentapi.TaskSpec;
import dev.rota.agentapi.TaskView;
import dev.rota.scheduler.agents.AgentClient;
import dev.rota.scheduler.agents.HttpAgentClient;
import dev.rota.scheduler.agents.Probe;
import dev.rota.store.AgentAddress;
import io.micronaut.context.annotation.Replaces;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/** A cluster of agents in memory, each up, erring, or hanging on every call, as a test sets it. */
@Singleton
@Replaces(HttpAgentClient.class)
public class FakeAgents implements AgentClient {
  /**
   * UP answers everything; ERRORS nothing; HANGS never returns; NO_STARTS answers probes but fails
   * every start; REFUSES_STARTS refuses every start as a bad request (4xx: retrying cannot help).
   */
  /** {@code TASKS_FAIL}: tasks start, then are reported failed by the agent at once. */
  public enum Mode {
    UP,
    ERRORS,
    HANGS,
    NO_STARTS,
    REFUSES_STARTS,
    TASKS_FAIL
  }

  public static final class Agent {
    volatile Mode mode = Mode.UP;
    volatile boolean heartbeating = true;
    final Map<String, TaskView> tasks = new ConcurrentHashMap<>();
    final Map<String, AtomicInteger> starts = new ConcurrentHashMap<>();
    final AtomicInteger startCalls = new AtomicInteger();
    final Map<String, TaskSpec> specs = new ConcurrentHashMap<>();
    final List<Delivery> deliveries = new java.util.concurrent.CopyOnWriteArrayList<>();
    final List<String> logsDiscarded = new java.util.concurrent.CopyOnWriteArrayList<>();

    /**
     * Run once by the next probe, which then answers without these tasks: an answer read before a
     * pause.
     */
    volatile Runnable pauseInNextProbe;

    volatile java.util.Set<String> staleWithout = java.util.Set.of();
  }

  private final Map<String, Agent> agents = new ConcurrentHashMap<>();
  private final CountDownLatch never = new CountDownLatch(1);

  public static String endpoint(String worker) {
    return "http://" + worker + ".fake:9101";
  }

  public Agent agent(String worker) {
    return agents.computeIfAbsent(endpoint(worker), e -> new Agent());
  }

  public void set(String worker, Mode mode) {
    agent(worker).mode = mode;
  }

  public void stopHeartbeats(String worker) {
    agent(worker).heartbeating = false;
  }

  public boolean heartbeating(String worker) {
    return agent(worker).heartbeating;
  }

  /**
   * The next probe of {@code worker} runs {@code pause} (a host frozen mid-term, as a clock moved
   * on) and answers a list without {@code missing}: what the term read before its pause, stale now.
   * The agent itself keeps its tasks.
   */
  public void staleNextProbe(String worker, java.util.Set<String> missing, Runnable pause) {
    agent(worker).staleWithout = missing;
    agent(worker).pauseInNextProbe = pause;
  }

  /** Puts a task on an agent by hand, as an operator or a crashed controller might have. */
  public void putByHand(String worker, String taskId) {
    putByHand(worker, taskId, null);
  }

  /** A task left of a VM of {@code submission} (deleted since, say). */
  public void putByHand(String worker, String taskId, Long submission) {
    agent(worker).tasks.put(taskId, running(taskId, null, submission));
  }

  public void exit(String worker, String taskId, int code) {
    agent(worker)
        .tasks
        .computeIfPresent(
            taskId, (id, t) -> new TaskView(id, t.vm(), "exited", code, t.startedAt(), null, null));
  }

  /** Calls to start a task on the worker, whatever came of them. */
  public int startCalls(String worker) {
    return agent(worker).startCalls.get();
  }

  public int starts(String worker, String taskId) {
    AtomicInteger n = agent(worker).starts.get(taskId);
    return n == null ? 0 : n.get();
  }

  /** The spec the controller last started the task with, or null. */
  public TaskSpec spec(String worker, String taskId) {
    return agent(worker).specs.get(taskId);
  }

  public List<String> tasks(String worker) {
    return new ArrayList<>(agent(worker).tasks.keySet());
  }

  private Agent reach(String endpoint) {
    Agent a = agents.computeIfAbsent(endpoint, e -> new Agent());
    if (a.mode == Mode.HANGS) {
      try {
        never.await(); // until the caller gives up and interrupts
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      throw new IllegalStateException("hung");
    }
    if (a.mode == Mode.ERRORS) {
      throw new IllegalStateException("connection refused");
    }
    return a;
  }

  @Override
  public Probe probe(AgentAddress agent, Duration timeout) {
    String endpoint = agent.endpoint();
    try {
      Agent a = reach(endpoint);
      Runnable pause = a.pauseInNextProbe;
      if (pause != null) {
        a.pauseInNextProbe = null;
        java.util.Set<String> missing = a.staleWithout;
        a.staleWithout = java.util.Set.of();
        pause.run();
        return Probe.answered(
            a.tasks.values().stream().filter(t -> !missing.contains(t.id())).toList());
      }
      return Probe.answered(List.copyOf(a.tasks.values()));
    } catch (IllegalStateException e) {
      return Probe.failed(e.getMessage());
    }
  }

  @Override
  public void startTask(AgentAddress agent, String taskId, TaskSpec spec, Duration timeout) {
    String endpoint = agent.endpoint();
    Agent a = reach(endpoint);
    a.startCalls.incrementAndGet();
    if (a.mode == Mode.NO_STARTS) {
      throw new IllegalStateException("disk full");
    }
    if (a.mode == Mode.REFUSES_STARTS) {
      throw new dev.rota.agentapi.AgentRejectedException(
          400, "command: not allowed on this worker");
    }
    TaskView here = a.tasks.get(taskId);
    if (here != null && !TaskId.sameSubmission(here.submission(), spec.submission())) {
      throw new dev.rota.agentapi.AgentRejectedException(
          409, "task " + taskId + " here is of submission " + here.submission());
    }
    a.starts.computeIfAbsent(taskId, k -> new AtomicInteger()).incrementAndGet();
    a.specs.put(taskId, spec);
    a.tasks.putIfAbsent(
        taskId,
        a.mode == Mode.TASKS_FAIL
            ? new TaskView(
                taskId,
                spec.vm(),
                "failed",
                null,
                null,
                null,
                "image not found",
                null,
                spec.submission(),
                null,
                null,
                null)
            : running(taskId, spec.vm(), spec.submission()));
  }

  @Override
  public void removeTask(
      AgentAddress agent, String taskId, Long submission, boolean discardLogs, Duration timeout) {
    String endpoint = agent.endpoint();
    if (discardLogs) {
      reach(endpoint).logsDiscarded.add(taskId);
    }
    reach(endpoint)
        .tasks
        .computeIfPresent(
            taskId, (id, t) -> TaskId.sameSubmission(submission, t.submission()) ? null : t);
  }

  @Override
  public LogChunk logs(
      AgentAddress agent, String taskId, dev.rota.agentapi.LogQuery query, Duration timeout) {
    if (!reach(agent.endpoint()).tasks.containsKey(taskId)) {
      throw new dev.rota.agentapi.AgentRejectedException(404, "no task " + taskId + " here");
    }
    return new LogChunk(new byte[0], 0, true);
  }

  @Override
  public void forgetLogs(AgentAddress agent, String vm, Duration timeout) {}

  @Override
  public void deleteDisk(AgentAddress agent, String diskId, Duration timeout) {}

  /** User data delivered to a running task, in order: its id, submission and data. */
  public record Delivery(String taskId, long submission, String userData) {}

  /** The user data the controller delivered to {@code worker}'s tasks, in order. */
  /** The tasks removed from {@code worker} with their logs. */
  public List<String> logsDiscarded(String worker) {
    return List.copyOf(agent(worker).logsDiscarded);
  }

  public List<Delivery> deliveries(String worker) {
    return List.copyOf(agent(worker).deliveries);
  }

  @Override
  public void deliverUserData(
      AgentAddress agent, String taskId, long submission, byte[] userData, Duration timeout) {
    Agent a = reach(agent.endpoint());
    TaskView task = a.tasks.get(taskId);
    if (task == null) {
      throw new dev.rota.agentapi.AgentRejectedException(404, "no task " + taskId);
    }
    if (!"running".equals(task.state())) {
      throw new dev.rota.agentapi.AgentRejectedException(409, "task " + taskId + " does not run");
    }
    a.deliveries.add(
        new Delivery(
            taskId, submission, new String(userData, java.nio.charset.StandardCharsets.UTF_8)));
  }

  @Override
  public void pauseTask(AgentAddress agent, String taskId, boolean pause, Duration timeout) {
    throw new dev.rota.agentapi.AgentRejectedException(409, "fake agents cannot pause");
  }

  @Override
  public dev.rota.agentapi.DiskSnapshot snapshotDisk(
      AgentAddress agent, String diskId, String image, boolean memory, Duration timeout) {
    throw new dev.rota.agentapi.AgentRejectedException(404, "fake agents hold no disks");
  }

  @Override
  public long suspendTask(AgentAddress agent, String taskId, Duration timeout) {
    throw new dev.rota.agentapi.AgentRejectedException(409, "fake agents cannot suspend");
  }

  @Override
  public List<dev.rota.agentapi.HeldDisk> disks(AgentAddress agent, Duration timeout) {
    return List.of();
  }

  @Override
  public dev.rota.agentapi.TaskTunnel connect(AgentAddress agent, String target, Duration timeout)
      throws java.io.IOException {
    throw new java.io.IOException("the fake agents hold no ports");
  }

  /** A task running, as an agent lists it. */
  private static TaskView running(String id, String vm, Long submission) {
    return new TaskView(
        id, vm, "running", null, null, null, null, null, submission, null, null, null);
  }
}
