package dev.rota.agent.tasks;

import dev.rota.agentapi.CheckSpec;
import dev.rota.agentapi.PortSpec;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The readiness and liveness checks of this worker's running tasks, as Kubernetes' kubelet runs
 * probes: each every period from its initial delay after the task started. Readiness says whether
 * the task is ready (told to the controller as it changes); a liveness check that fails its
 * threshold of times in a row stops the task, which then fails with the check's own words, to be
 * restarted under its VM's restart policy. A task with a readiness check is not judged by its
 * liveness check before it was first ready: a guest still booting is not dead, nor is one paused.
 */
public final class HealthChecks {
  private static final Logger log = LoggerFactory.getLogger(HealthChecks.class);

  /**
   * How long a connection to a forwarded port is watched for being closed at once: QEMU's user-mode
   * stack takes the connection on the worker even when nothing listens in the guest, and closes it
   * when the guest refuses.
   */
  private static final Duration REFUSAL = Duration.ofMillis(500);

  private final ScheduledExecutorService timers;
  private final ExecutorService checks;
  private final String host;
  private final Duration grace;
  private final HttpClient http;

  /**
   * @param host where the tasks' named ports are reached on the worker
   * @param grace what a task stopped for its liveness gets before it is killed
   */
  public HealthChecks(
      ScheduledExecutorService timers, ExecutorService checks, String host, Duration grace) {
    this.timers = timers;
    this.checks = checks;
    this.host = host;
    this.grace = grace;
    this.http = HttpClient.newBuilder().executor(checks).build();
  }

  /** Runs the task's checks, if it has any, until it ends. */
  public void watch(Task task, TaskRuntime runtime) {
    if (task.spec.checks() == null) {
      return;
    }
    CheckSpec readiness = task.spec.checks().readiness();
    CheckSpec liveness = task.spec.checks().liveness();
    if (readiness != null) {
      schedule(task, runtime, readiness, true, 0, Duration.ZERO);
    }
    if (liveness != null) {
      schedule(task, runtime, liveness, false, 0, Duration.ZERO);
    }
  }

  private void schedule(
      Task task, TaskRuntime runtime, CheckSpec check, boolean ready, int failures, Duration in) {
    timers.schedule(
        () -> checks.execute(() -> round(task, runtime, check, ready, failures)),
        in.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  /** One round of one check: run it once it is due, say what it found, and schedule the next. */
  private void round(Task task, TaskRuntime runtime, CheckSpec check, boolean ready, int failures) {
    if (task.ended() || task.isRemoved()) {
      return;
    }
    Duration period = Duration.ofSeconds(Math.max(1, check.periodSeconds()));
    if (runtime.paused(task)) {
      // A paused guest answers nothing, and is neither dead nor newly unready: asked once it runs.
      schedule(task, runtime, check, ready, failures, period);
      return;
    }
    String started = task.view().startedAt();
    if (started == null) {
      schedule(task, runtime, check, ready, failures, period); // still starting
      return;
    }
    Instant due = Instant.parse(started).plusSeconds(check.initialDelaySeconds());
    Instant now = Instant.now();
    if (now.isBefore(due)) {
      schedule(task, runtime, check, ready, failures, Duration.between(now, due));
      return;
    }
    if (!ready && task.spec.checks().readiness() != null && !task.beenReady()) {
      schedule(task, runtime, check, ready, failures, period);
      return;
    }
    String failed = attempt(task, runtime, check);
    int inARow = failed == null ? 0 : failures + 1;
    boolean over = inARow >= Math.max(1, check.failureThreshold());
    if (ready) {
      if (failed == null) {
        task.readiness(true, null, Instant.now());
      } else if (over) {
        task.readiness(false, "readiness check " + check.describe() + ": " + failed, Instant.now());
      }
    } else if (over) {
      String why =
          "liveness check "
              + check.describe()
              + " failed "
              + inARow
              + (inARow == 1 ? " time" : " times")
              + ": "
              + failed;
      log.info("task {}: {}; stopping it", task.id, why);
      task.failing(why);
      runtime.stop(task, grace);
      return;
    }
    schedule(task, runtime, check, ready, inARow, period);
  }

  /** Runs the check once; null when it passed, else what went wrong, in a few words. */
  String attempt(Task task, TaskRuntime runtime, CheckSpec check) {
    Duration timeout = Duration.ofSeconds(Math.max(1, check.timeoutSeconds()));
    try {
      if (Boolean.TRUE.equals(check.guestAgent())) {
        return runtime.guestAgentAnswers(task, timeout) ? null : "the guest agent did not answer";
      }
      if (check.tcp() != null) {
        return connect(task, runtime, check.tcp(), timeout);
      }
      if (check.http() != null) {
        return get(port(task, check.http().port()), check.http(), timeout);
      }
      return exec(task, runtime, check, timeout);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "the agent is stopping";
    } catch (IOException | Refusal e) {
      return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
  }

  private static int port(Task task, String name) throws IOException {
    return named(task, name).hostPort();
  }

  private static PortSpec named(Task task, String name) throws IOException {
    for (PortSpec p : task.spec.portsOrNone()) {
      if (p.name().equals(name) && p.hostPort() != null) {
        return p;
      }
    }
    throw new IOException("the VM has no port " + name);
  }

  /**
   * Connects to the port: a connection closed at once (nothing took it in the guest) fails as a
   * refusal would, and so does one the guest has not answered yet (its runtime says).
   */
  private String connect(Task task, TaskRuntime runtime, String name, Duration timeout)
      throws IOException {
    PortSpec port = named(task, name);
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(host, port.hostPort()), (int) timeout.toMillis());
      s.setSoTimeout((int) Math.min(REFUSAL.toMillis(), timeout.toMillis()));
      try (InputStream in = s.getInputStream()) {
        return in.read() < 0 ? "the connection was closed at once: nothing listens" : null;
      } catch (SocketTimeoutException e) {
        // Open and quiet: a server waiting for its client, or a guest not answering yet.
        return runtime.stillConnecting(task, port.port())
            ? "the guest has not answered a connection to its port " + port.port()
            : null;
      }
    }
  }

  private String get(int port, CheckSpec.HttpCheck check, Duration timeout)
      throws IOException, InterruptedException {
    HttpResponse<Void> answer =
        http.send(
            HttpRequest.newBuilder(URI.create("http://" + host + ":" + port + check.path()))
                .timeout(timeout)
                .GET()
                .build(),
            HttpResponse.BodyHandlers.discarding());
    return answer.statusCode() == check.status()
        ? null
        : "answered " + answer.statusCode() + ", not " + check.status();
  }

  private String exec(Task task, TaskRuntime runtime, CheckSpec check, Duration timeout)
      throws IOException, Refusal, InterruptedException {
    Execution run = runtime.exec(task, check.exec());
    run.stdin().close();
    Future<Integer> code =
        checks.submit(
            () ->
                run.await(
                    new dev.rota.agentapi.ExecFrames.Writer(
                        java.io.OutputStream.nullOutputStream())));
    try {
      int exit = code.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      return exit == 0 ? null : "exited with " + exit;
    } catch (TimeoutException e) {
      run.cancel();
      code.cancel(true);
      return "did not finish within " + timeout.toSeconds() + " s";
    } catch (java.util.concurrent.ExecutionException e) {
      return e.getCause() == null ? "failed" : String.valueOf(e.getCause().getMessage());
    }
  }
}
