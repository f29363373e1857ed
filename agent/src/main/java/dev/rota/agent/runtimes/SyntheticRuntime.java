package dev.rota.agent.runtimes;

import dev.rota.agent.config.AgentConfig;
import dev.rota.agent.images.HeldImages;
import dev.rota.agent.tasks.Task;
import dev.rota.agent.tasks.TaskRuntime;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The {@code synthetic} runtime: no process, for tests and load runs with hundreds of agents in one
 * JVM. A task runs after a short delay (with none, as it is started), until it is removed, or exits
 * on request: env {@code SYNTHETIC_EXIT_AFTER} (e.g. {@code 2s}) with {@code SYNTHETIC_EXIT_CODE}
 * (default 1).
 */
public final class SyntheticRuntime implements TaskRuntime {
  private final ScheduledExecutorService timers;
  private final Duration startDelay;
  private final HeldImages held;

  public SyntheticRuntime(ScheduledExecutorService timers, Duration startDelay, HeldImages held) {
    this.timers = timers;
    this.startDelay = startDelay;
    this.held = held;
  }

  @Override
  public void start(Task task) {
    // It fetches nothing, and pretends to hold what its tasks name, as a worker's image cache
    // would.
    held.used(task.spec.image());
    Map<String, String> env = task.spec.env() == null ? Map.of() : task.spec.env();
    if (startDelay.isZero()) {
      // At once, on the caller's thread: a timer can be late by as long as the timers are busy (dev
      // mode's agents share theirs, and send their reports on them).
      task.running(Instant.now());
    } else {
      task.handle =
          timers.schedule(
              () -> task.running(Instant.now()), startDelay.toMillis(), TimeUnit.MILLISECONDS);
    }
    String after = env.get("SYNTHETIC_EXIT_AFTER");
    if (after != null) {
      int code = Integer.parseInt(env.getOrDefault("SYNTHETIC_EXIT_CODE", "1"));
      long at = startDelay.plus(AgentConfig.duration(after)).toMillis();
      timers.schedule(
          () -> task.ended(code, "exited with code " + code, Instant.now()),
          at,
          TimeUnit.MILLISECONDS);
    }
  }

  @Override
  public void stop(Task task, Duration grace) {
    if (task.handle instanceof ScheduledFuture<?> f) {
      f.cancel(false);
    }
    task.ended(0, "removed", Instant.now());
  }
}
