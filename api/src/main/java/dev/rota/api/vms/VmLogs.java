package dev.rota.api.vms;

import dev.rota.agentapi.AgentRejectedException;
import dev.rota.agentapi.LogChunk;
import dev.rota.agentapi.LogQuery;
import dev.rota.agentapi.TaskId;
import dev.rota.api.problem.Problems;
import dev.rota.api.watch.WatchStreams;
import dev.rota.control.TaskAccess;
import dev.rota.control.TaskWorkers;
import dev.rota.store.VmRepository;
import dev.rota.store.VmRow;
import dev.rota.store.WorkerRepository;
import dev.rota.store.WorkerRow;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.List;
import reactor.core.publisher.Flux;

/**
 * A VM's output, from the agent that runs or ran the task, as {@code kubectl logs} or {@code nomad
 * alloc logs} would: the logs stay on the worker, kept after the task ends until the VM is deleted,
 * and the API passes them through. A follower reads from the offset its last read ended at, so it
 * loses nothing the worker still keeps; a read that finds nothing new waits a little for more.
 */
@Singleton
public class VmLogs {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(VmLogs.class);

  /** How often a waiting read looks again. */
  static final Duration LOOK_AGAIN = Duration.ofMillis(250);

  /** The longest a read waits for more. */
  static final int MAX_WAIT_SECONDS = 60;

  /** What was read, of which task, on which worker. */
  public record Read(LogChunk chunk, String taskId, String worker) {}

  /**
   * A followed log: the bytes from offset {@code from} on, as the worker gets them, until the task
   * ends.
   */
  public record Followed(String taskId, long from, Flux<byte[]> bytes) {}

  /** How long a follow keeps asking a worker that does not answer before it gives up. */
  static final Duration AGENT_PATIENCE = Duration.ofSeconds(30);

  private final VmRepository vms;
  private final WorkerRepository workers;
  private final TaskAccess tasks;
  private final TaskWorkers taskWorkers;
  private final WatchStreams streams;

  public VmLogs(
      VmRepository vms,
      WorkerRepository workers,
      TaskAccess tasks,
      TaskWorkers taskWorkers,
      WatchStreams streams) {
    this.streams = streams;
    this.vms = vms;
    this.workers = workers;
    this.tasks = tasks;
    this.taskWorkers = taskWorkers;
  }

  /**
   * Reads the current task's log ({@code previous}: the generation before), waiting up to {@code
   * wait} when a read from an offset finds nothing new and the task may still write.
   */
  public Read read(String name, LogQuery query, boolean previous, Duration wait) {
    VmRow vm = vms.findById(name).orElseThrow(() -> Problems.notFound("vm", name));
    int generation = vm.state().restartCount() - (previous ? 1 : 0);
    if (generation < 0) {
      throw Problems.conflict(
          "vm '" + name + "' is in its first generation: there is none before it to show");
    }
    String taskId = TaskId.of(vm.taskName(), generation).toString();
    List<String> candidates = taskWorkers.candidates(vm, taskId);
    if (candidates.isEmpty()) {
      throw Problems.conflict(
          "vm '" + name + "' is " + vm.state().status() + " and has not run yet: it has no output");
    }
    RuntimeException failure = null;
    for (String worker : candidates) {
      WorkerRow row = workers.findById(worker).orElse(null);
      if (row == null) {
        continue;
      }
      try {
        return new Read(follow(row, taskId, query, wait), taskId, worker);
      } catch (AgentRejectedException e) {
        if (e.status() != 404) {
          failure =
              Problems.badGateway(
                  "worker '"
                      + worker
                      + "' refused the logs of task "
                      + taskId
                      + ": "
                      + e.getMessage());
        }
      } catch (RuntimeException e) {
        failure =
            Problems.badGateway(
                "worker '"
                    + worker
                    + "' did not give the logs of task "
                    + taskId
                    + ": "
                    + e.getMessage());
      }
    }
    if (failure != null) {
      throw failure;
    }
    throw Problems.conflict(
        "no worker keeps the logs of task "
            + taskId
            + " (looked on "
            + String.join(", ", candidates)
            + "; a worker deleted takes them with it)");
  }

  /**
   * {@code kubectl logs -f}: the first read as {@link #read} gives it (so that a missing VM or
   * worker is an answer of its own), then, on a held stream, every byte the task writes after it,
   * read from the worker by offset, until the task ends and all it wrote is sent. A worker that
   * stops answering is asked again for {@link #AGENT_PATIENCE}; then the stream breaks, and the
   * client follows again from the offset it reached.
   */
  public Followed follow(String name, LogQuery query, boolean previous) {
    Read first = read(name, query, previous, Duration.ZERO);
    WorkerRow worker =
        workers
            .findById(first.worker())
            .orElseThrow(() -> Problems.conflict("worker '" + first.worker() + "' was deleted"));
    LogChunk chunk = first.chunk();
    long from = chunk.next() - chunk.bytes().length;
    Flux<byte[]> bytes =
        streams.held(
            "logs-" + first.taskId(),
            sink -> {
              try {
                if (chunk.bytes().length > 0) {
                  sink.next(chunk.bytes());
                }
                long next = chunk.next();
                boolean live = chunk.live() || chunk.bytes().length > 0;
                long failingSince = 0;
                while (live && !sink.isCancelled()) {
                  LogChunk more;
                  try {
                    more =
                        tasks.logs(
                            worker, first.taskId(), new LogQuery(query.stream(), next, null, null));
                    failingSince = 0;
                  } catch (AgentRejectedException e) {
                    if (e.status() != 404) {
                      sink.error(e);
                      return;
                    }
                    // The task and its log are gone (its VM deleted): the follow ends, as
                    // kubectl's does when its pod goes; nothing failed.
                    log.info("log follow of {} ended: {}", first.taskId(), e.getMessage());
                    break;
                  } catch (RuntimeException e) {
                    long now = System.nanoTime();
                    failingSince = failingSince == 0 ? now : failingSince;
                    if (now - failingSince > AGENT_PATIENCE.toNanos()) {
                      sink.error(e);
                      return;
                    }
                    Thread.sleep(LOOK_AGAIN.toMillis());
                    continue;
                  }
                  if (more.bytes().length > 0) {
                    sink.next(more.bytes());
                  }
                  next = more.next();
                  // A task that ended may still have more than one read's worth to send.
                  live = more.live() || more.bytes().length > 0;
                  if (more.bytes().length == 0 && live) {
                    Thread.sleep(LOOK_AGAIN.toMillis());
                  }
                }
                sink.complete();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    return new Followed(first.taskId(), from, bytes);
  }

  private LogChunk follow(WorkerRow worker, String taskId, LogQuery query, Duration wait) {
    long until = System.nanoTime() + wait.toNanos();
    while (true) {
      LogChunk chunk = tasks.logs(worker, taskId, query);
      if (chunk.bytes().length > 0
          || !chunk.live()
          || query.from() == null
          || System.nanoTime() >= until) {
        return chunk;
      }
      try {
        Thread.sleep(LOOK_AGAIN.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return chunk;
      }
    }
  }
}
