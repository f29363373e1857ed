package dev.rota.agent.link;

import dev.rota.agent.tasks.Task;
import dev.rota.agent.tasks.TaskTable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's half of "a VM never runs twice". The controller places a silent worker's VMs
 * elsewhere once it has been silent for its lost and offline deadlines; every heartbeat's answer
 * tells the agent the fence, a shorter time (the offline deadline). An agent that no controller
 * host has answered for longer than the fence (a network partition, or every host down) stops its
 * tasks, each ending failed with the reason, so that a new copy placed elsewhere never runs beside
 * the old one. When to stop is kept in the data folder: an agent restarted during a partition does
 * not start its clock again. Before any host has told it a fence, an agent stops nothing. A VM
 * whose {@code disconnect.replace} is false is never placed elsewhere while its worker is offline:
 * its agent keeps it running through the cut, for good or for its {@code
 * disconnect.stopAfterSeconds}.
 */
public final class Fence {
  private static final Logger log = LoggerFactory.getLogger(Fence.class);
  static final Duration CHECK_EVERY = Duration.ofSeconds(1);

  private final Path file;
  private final Clock clock;
  private final TaskTable tasks;
  private volatile Instant heardAt;
  private volatile Duration after;
  private volatile boolean tripped;

  /** The time last kept in the file; null before the first. */
  private Instant savedAt;

  private boolean closed;

  public Fence(Path file, Clock clock, TaskTable tasks) {
    this.file = file;
    this.clock = clock;
    this.tasks = tasks;
    load();
  }

  /**
   * Looks every {@link #CHECK_EVERY} on {@code timers}; stopping the tasks takes their grace, on
   * {@code work}.
   */
  public void start(ScheduledExecutorService timers, Executor work) {
    // The look is quick and done here; only the stops, which take their grace, go to the work
    // threads.
    timers.scheduleWithFixedDelay(
        () -> {
          List<Task> due = due();
          if (!due.isEmpty()) {
            work.execute(() -> tasks.stopFenced(due));
          }
        },
        CHECK_EVERY.toMillis(),
        CHECK_EVERY.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  /**
   * A controller host took a heartbeat or a registration; {@code told} is the fence its answer
   * gave, if any.
   */
  /**
   * Its agent stops: nothing is written in the agent's folder from now on, though a heartbeat
   * answered meanwhile still arrives; whoever stopped the agent may be removing the folder.
   */
  public synchronized void close() {
    closed = true;
  }

  synchronized void heard(Optional<String> told) {
    Duration before = after;
    told.flatMap(Fence::seconds).ifPresent(fence -> after = fence);
    heardAt = clock.instant();
    boolean news = tripped || !java.util.Objects.equals(before, after);
    if (tripped) {
      log.info("a controller host answers again; tasks are taken again");
      tripped = false;
    }
    // Not at every heartbeat: a kept time a little old only makes a restarted agent stop its tasks
    // a little early, never late.
    if (news || savedAt == null || Duration.between(savedAt, heardAt).compareTo(saveEvery()) >= 0) {
      save();
    }
  }

  private Duration saveEvery() {
    Duration fence = after;
    Duration tenth = fence == null ? Duration.ZERO : fence.dividedBy(10);
    return tenth.compareTo(Duration.ofSeconds(1)) > 0 ? tenth : Duration.ofSeconds(1);
  }

  /**
   * Stops each task whose time cut off is up (the fence, or its own {@code
   * disconnect.stopAfterSeconds}) and returns once they ended; true when it stopped any.
   */
  boolean check() {
    List<Task> due = due();
    tasks.stopFenced(due);
    return !due.isEmpty();
  }

  /** The tasks whose time cut off is up, marked to stop: each once. */
  private List<Task> due() {
    Optional<Duration> cut = silence();
    if (cut.isEmpty()) {
      return List.of();
    }
    Duration silent = cut.get();
    Duration fence = after;
    List<Task> due = tasks.markFenced(t -> why(t.spec.disconnect(), silent, fence));
    if (!due.isEmpty()) {
      synchronized (this) {
        tripped = true;
      }
      log.warn(
          "no controller host has answered for {} s: stopping {} task(s) at their fence",
          silent.toSeconds(),
          due.size());
    }
    return due;
  }

  /**
   * How long no host has answered, while that is past the shortest fence a task may have; empty
   * otherwise.
   */
  private synchronized Optional<Duration> silence() {
    Duration fence = after;
    Instant heard = heardAt;
    if (fence == null || heard == null) {
      return Optional.empty();
    }
    Duration silent = Duration.between(heard, clock.instant());
    return silent.compareTo(Duration.ofSeconds(1)) > 0 ? Optional.of(silent) : Optional.empty();
  }

  /** Why a task with {@code disconnect} must stop after {@code silent} cut off, if it must. */
  static Optional<String> why(
      dev.rota.agentapi.Disconnect disconnect, Duration silent, Duration fence) {
    if (!dev.rota.agentapi.Disconnect.keeps(disconnect)) {
      return silent.compareTo(fence) > 0
          ? Optional.of(
              "stopped by its agent: no controller host has answered for "
                  + silent.toSeconds()
                  + " s, past the fence of "
                  + fence.toSeconds()
                  + " s, after which the VM may be placed elsewhere")
          : Optional.empty();
    }
    Integer limit = disconnect.stopAfterSeconds();
    return limit != null && silent.compareTo(Duration.ofSeconds(limit)) > 0
        ? Optional.of(
            "stopped by its agent: no controller host has answered for "
                + silent.toSeconds()
                + " s, past its disconnect.stopAfterSeconds of "
                + limit)
        : Optional.empty();
  }

  private static Optional<Duration> seconds(String header) {
    try {
      long s = Long.parseLong(header.strip());
      return s > 0 ? Optional.of(Duration.ofSeconds(s)) : Optional.empty();
    } catch (NumberFormatException e) {
      return Optional.empty(); // a controller saying something else is not followed
    }
  }

  private void load() {
    try {
      if (Files.exists(file)) {
        String[] parts = Files.readString(file, StandardCharsets.UTF_8).strip().split(" ");
        heardAt = Instant.ofEpochMilli(Long.parseLong(parts[0]));
        after = Duration.ofSeconds(Long.parseLong(parts[1]));
      }
    } catch (IOException | RuntimeException e) {
      log.warn(
          "cannot read the fence kept in {} ({}); none until a controller host answers",
          file,
          e.toString());
    }
  }

  /**
   * Best effort: a full disk must not stop the heartbeats; the clock then starts again at a
   * restart.
   */
  private void save() {
    Duration fence = after;
    if (fence == null || closed) {
      return;
    }
    try {
      Path part = file.resolveSibling(file.getFileName() + ".part");
      Files.writeString(
          part, heardAt.toEpochMilli() + " " + fence.toSeconds(), StandardCharsets.UTF_8);
      Files.move(part, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      savedAt = heardAt;
    } catch (IOException e) {
      log.debug("cannot keep the fence in {}: {}", file, e.toString());
    }
  }
}
